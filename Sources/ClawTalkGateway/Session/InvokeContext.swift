public import ClawTalkProtocol

/// What a command handler gets: the request, its parsed params, the socket epoch it arrived
/// on and its deadline. Cancellation (timeout, `node.invoke.cancel`) arrives as task
/// cancellation; a handler may return its own cancelled result or throw.
public struct InvokeContext: Sendable {
    /// The request as received.
    public let request: NodeInvokeRequest
    /// `paramsJSON` parsed (`{}` for null/absent/empty); unknown keys are the handler's to ignore.
    public let params: [String: WireJSON]
    /// The socket epoch the invoke arrived on.
    public let epoch: Int
    /// The local deadline (`timeoutMs`, default 30 s).
    public let timeout: Duration

    /// A context with the given values.
    public init(request: NodeInvokeRequest, params: [String: WireJSON], epoch: Int, timeout: Duration) {
        self.request = request
        self.params = params
        self.epoch = epoch
        self.timeout = timeout
    }

    /// The command, e.g. `talk.ptt.start`.
    public var command: String { request.command }
}
