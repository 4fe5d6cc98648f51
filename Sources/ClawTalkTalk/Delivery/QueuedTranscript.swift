/// A transcript waiting in the persistent outbox for its gateway (talk.md §3; issue #6):
/// the prompt exactly as it will be sent and the id every retry reuses as `idempotencyKey`
/// (`chat.send`) or `eventId` (`voice.transcript`).
public struct QueuedTranscript: Sendable, Equatable, Codable {
    /// Lowercase UUID v4; the same on every attempt.
    public var id: String
    /// The prompt (transcript with its prefixes).
    public var message: String
    /// ``TranscriptSource`` raw value (picks the route).
    public var source: String
    /// The wake word, for the `agent` route.
    public var trigger: String?
    /// Target session.
    public var sessionKey: String
    /// Wall-clock time it was captured, milliseconds.
    public var queuedAtMs: Int64

    /// A queued transcript with the given values.
    public init(
        id: String, message: String, source: TranscriptSource, trigger: String? = nil, sessionKey: String,
        queuedAtMs: Int64
    ) {
        self.id = id
        self.message = message
        self.source = source.rawValue
        self.trigger = trigger
        self.sessionKey = sessionKey
        self.queuedAtMs = queuedAtMs
    }

    /// ``source`` as a known value (push-to-talk for an unknown one).
    public var transcriptSource: TranscriptSource {
        TranscriptSource(rawValue: source) ?? .pushToTalk
    }
}
