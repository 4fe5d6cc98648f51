public import ClawTalkProtocol

/// How an invoke ended, before it becomes a `node.invoke.result`.
public enum InvokeOutcome: Sendable, Hashable {
    /// Success with the payload as JSON text (nil: no payload).
    case success(payloadJSON: String?)
    /// Failure with the wire error.
    case failure(NodeError)

    /// The closed `node.invoke.result` params for invoke `id` of node `nodeId` (protocol.md §10.3):
    /// `payloadJSON` on success, `error {code, message}` on failure, nothing else.
    public func result(id: String, nodeId: String) -> NodeInvokeResult {
        switch self {
        case .success(let payloadJSON):
            NodeInvokeResult(id: id, nodeId: nodeId, ok: true, payloadJSON: payloadJSON)
        case .failure(let error):
            NodeInvokeResult(
                id: id, nodeId: nodeId, ok: false,
                error: NodeInvokeResult.ErrorBody(code: error.code, message: error.message))
        }
    }

    /// Whether a repeat with the same idempotency key may reuse this outcome: not for the
    /// transient `UNAVAILABLE`/`NODE_NOT_READY` failures, which a retry should re-run.
    var isCacheable: Bool {
        guard case .failure(let error) = self else { return true }
        return error.knownCode != .unavailable && error.knownCode != .nodeNotReady
    }
}
