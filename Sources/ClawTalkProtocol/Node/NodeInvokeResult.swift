/// `node.invoke.result` params (closed, protocol.md §10.3):
/// `{id, nodeId, ok, payloadJSON?, error?: {code?, message?}}`. clawtalk never sends
/// `payload`, and the error has no other keys.
public struct NodeInvokeResult: Sendable, Hashable, Codable {
    /// The request method.
    public static let method = NodeMethod.invokeResult.rawValue

    /// The invoke id.
    public var id: String
    /// This node's id.
    public var nodeId: String
    /// Success flag.
    public var ok: Bool
    /// Success payload as JSON text.
    public var payloadJSON: String?
    /// Failure.
    public var error: ErrorBody?

    /// `error {code?, message?}` of a failed result.
    public struct ErrorBody: Sendable, Hashable, Codable {
        /// Error code.
        public var code: String?
        /// `"<CODE>: <hint>"`.
        public var message: String?

        /// An error body.
        public init(code: String?, message: String?) {
            self.code = code
            self.message = message
        }
    }

    /// A result with the given values.
    public init(id: String, nodeId: String, ok: Bool, payloadJSON: String? = nil, error: ErrorBody? = nil) {
        self.id = id
        self.nodeId = nodeId
        self.ok = ok
        self.payloadJSON = payloadJSON
        self.error = error
    }

    /// Success with a ready JSON text payload (nil: no payload).
    public static func success(for request: NodeInvokeRequest, payloadJSON: String?) -> NodeInvokeResult {
        NodeInvokeResult(id: request.id, nodeId: request.nodeId, ok: true, payloadJSON: payloadJSON)
    }

    /// Success with `payload` encoded as JSON text (sorted keys).
    public static func success(
        for request: NodeInvokeRequest, payload: some Encodable
    ) throws(ProtocolError) -> NodeInvokeResult {
        success(for: request, payloadJSON: try WireJSON(encoding: payload).encodedString())
    }

    /// Failure with a wire error.
    public static func failure(for request: NodeInvokeRequest, error: NodeError) -> NodeInvokeResult {
        NodeInvokeResult(
            id: request.id, nodeId: request.nodeId, ok: false,
            error: ErrorBody(code: error.code, message: error.message))
    }

    /// The request frame carrying this result.
    public func requestFrame(id: String = WireID.make()) throws(ProtocolError) -> RequestFrame {
        try RequestFrame(id: id, method: Self.method, encoding: self)
    }
}
