/// `chat.send` params `{sessionKey, message, thinking, timeoutMs, idempotencyKey}`
/// (talk.md §3.2; operator, `operator.write`).
public struct ChatSendParams: Sendable, Hashable, Codable {
    /// Target session.
    public var sessionKey: String
    /// The prompt: transcript, possibly prefixed (talk.md §3.5).
    public var message: String
    /// Thinking level (`"low"` for voice).
    public var thinking: String
    /// Server-side run timeout.
    public var timeoutMs: Int
    /// Dedupe key (lowercase UUID v4).
    public var idempotencyKey: String

    /// Params with clawtalk's defaults: `thinking:"low"`, `timeoutMs:30000`, a fresh key.
    public init(
        sessionKey: String, message: String, thinking: String = "low", timeoutMs: Int = 30_000,
        idempotencyKey: String = WireID.make()
    ) {
        self.sessionKey = sessionKey
        self.message = message
        self.thinking = thinking
        self.timeoutMs = timeoutMs
        self.idempotencyKey = idempotencyKey
    }
}

/// `chat.send` result, read leniently: `{runId, status?, …}`.
public struct ChatSendResult: Sendable, Hashable, Encodable {
    /// The run to track; nil when the Gateway did not report one.
    public var runId: String?
    /// Run status when reported (e.g. `started`, `ok`).
    public var status: String?

    /// A result with the given values.
    public init(runId: String?, status: String? = nil) {
        self.runId = runId
        self.status = status
    }

    /// Reads the payload; unknown keys ignored.
    public init(json: WireJSON?) {
        self.init(runId: json?["runId"]?.nonEmptyStringValue, status: json?["status"]?.stringValue)
    }
}
