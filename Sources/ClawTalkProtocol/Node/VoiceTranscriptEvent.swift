/// `voice.transcript` payload `{text, sessionKey, eventId}` (talk.md §3.3). clawtalk
/// always sends `sessionKey` and a UUID `eventId`.
public struct VoiceTranscriptEvent: Sendable, Hashable, Codable {
    /// Transcript, at most 20000 UTF-16 units.
    public var text: String
    /// Target session.
    public var sessionKey: String
    /// Dedupe id (lowercase UUID v4).
    public var eventId: String

    /// A transcript event; `text` is cut to 20000 UTF-16 units without splitting a
    /// surrogate pair.
    public init(text: String, sessionKey: String, eventId: String = WireID.make()) {
        self.text = text.truncatedToUTF16(GatewayLimits.maxTranscriptUTF16)
        self.sessionKey = sessionKey
        self.eventId = eventId
    }
}
