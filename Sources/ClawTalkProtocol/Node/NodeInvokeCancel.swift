/// `node.invoke.cancel {invokeId, nodeId}` event payload (protocol.md §10.4).
public struct NodeInvokeCancel: Sendable, Hashable, Encodable {
    /// The invoke to cancel.
    public var invokeId: String
    /// Target node.
    public var nodeId: String

    /// A cancel notice.
    public init(invokeId: String, nodeId: String) {
        self.invokeId = invokeId
        self.nodeId = nodeId
    }

    /// Reads the payload; `invokeId` is required.
    public init(json: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "node.invoke.cancel")
        self.init(invokeId: try reader.requiredString("invokeId"), nodeId: reader.string("nodeId") ?? "")
    }
}
