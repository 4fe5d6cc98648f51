/// `shutdown {reason, restartExpectedMs?}`, sent before the Gateway closes with 1012
/// (protocol.md §16). `restartExpectedMs` may be a number, `null` or absent.
public struct ShutdownEvent: Sendable, Hashable, Encodable {
    /// Why the Gateway is going down.
    public var reason: String?
    /// Expected restart delay; nil when `null`, absent or not a non-negative integer.
    public var restartExpectedMs: Int?

    /// A shutdown notice.
    public init(reason: String?, restartExpectedMs: Int?) {
        self.reason = reason
        self.restartExpectedMs = restartExpectedMs
    }

    /// Reads the payload leniently.
    public init(json: WireJSON) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "shutdown")
        self.init(
            reason: reader.string("reason"),
            restartExpectedMs: reader.int("restartExpectedMs").flatMap { $0 >= 0 ? $0 : nil })
    }

    /// First reconnect delay per protocol.md §16: `max(restartExpectedMs ?? 0, 500)` before jitter.
    public var firstReconnectDelayMs: Int {
        max(restartExpectedMs ?? 0, 500)
    }
}
