/// `talk.session.create` result of a realtime session, read leniently (talk.md §9.2):
/// `{sessionId, relaySessionId, audio:{inputEncoding, inputSampleRateHz, outputEncoding,
/// outputSampleRateHz}, provider, model, voice, expiresAt}`. Later calls carry ``sessionId``;
/// events carry ``relaySessionId``.
public struct RealtimeSessionCreated: Sendable, Hashable {
    /// The session the node's calls name.
    public var sessionId: String
    /// The id its `talk.event` payloads carry (`sessionId` when the gateway states none).
    public var relaySessionId: String
    /// What the provider takes.
    public var input: RealtimeAudioFormat
    /// What the provider sends.
    public var output: RealtimeAudioFormat
    /// Provider, informational.
    public var provider: String?
    /// Model, informational.
    public var model: String?
    /// Voice, informational.
    public var voice: String?

    /// Reads the payload; `sessionId` is required, a missing format reads as pcm16 at 24 kHz.
    public init(json: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "talk.session.create")
        sessionId = try reader.requiredString("sessionId")
        relaySessionId = reader["relaySessionId"]?.nonEmptyStringValue ?? sessionId
        let audio = reader["audio"]
        let fallback = RealtimeAudioFormat.pcm16At24k
        input = RealtimeAudioFormat(
            encoding: audio?["inputEncoding"]?.stringValue ?? fallback.encoding,
            sampleRateHz: audio?["inputSampleRateHz"]?.intValue ?? fallback.sampleRateHz)
        output = RealtimeAudioFormat(
            encoding: audio?["outputEncoding"]?.stringValue ?? fallback.encoding,
            sampleRateHz: audio?["outputSampleRateHz"]?.intValue ?? fallback.sampleRateHz)
        provider = reader.string("provider")
        model = reader.string("model")
        voice = reader.string("voice")
    }
}
