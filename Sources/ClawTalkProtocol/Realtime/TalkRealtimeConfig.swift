/// The gateway's `talk.realtime` (from `talk.config`; talk.md §9.2), read leniently:
/// `{mode, transport, provider?, model?, voice?, vadThreshold?, silenceDurationMs?,
/// prefixPaddingMs?}`. Only `mode:"realtime"` with `transport:"gateway-relay"` runs realtime Talk
/// on clawtalk.
public struct TalkRealtimeConfig: Sendable, Hashable {
    /// `realtime`, `stt-tts`, `transcription` (absent: nil).
    public var mode: String?
    /// `webrtc`, `provider-websocket`, `gateway-relay`, `managed-room` (absent: nil).
    public var transport: String?
    /// Provider id.
    public var provider: String?
    /// Model id.
    public var model: String?
    /// Voice.
    public var voice: String?
    /// Server-VAD threshold.
    public var vadThreshold: Double?
    /// Silence that ends a turn, ms.
    public var silenceDurationMs: Int?
    /// Audio kept before speech, ms.
    public var prefixPaddingMs: Int?

    /// Reads the raw `talk.realtime` value; nil when it is not an object.
    public init?(json: WireJSON?) {
        guard let object = json?.objectValue else { return nil }
        mode = object["mode"]?.nonEmptyStringValue
        transport = object["transport"]?.nonEmptyStringValue
        provider = object["provider"]?.nonEmptyStringValue
        model = object["model"]?.nonEmptyStringValue
        voice = object["voice"]?.nonEmptyStringValue
        vadThreshold = object["vadThreshold"]?.doubleValue
        silenceDurationMs = object["silenceDurationMs"]?.intValue
        prefixPaddingMs = object["prefixPaddingMs"]?.intValue
    }

    /// Whether it asks for realtime Talk over the gateway relay.
    public var wantsGatewayRelay: Bool { mode == "realtime" && transport == "gateway-relay" }

    /// Create params for chat session `sessionKey` in `language`.
    public func createParams(sessionKey: String, language: String?) -> RealtimeSessionCreateParams {
        RealtimeSessionCreateParams(
            sessionKey: sessionKey, provider: provider, model: model, voice: voice, language: language,
            vadThreshold: vadThreshold, silenceDurationMs: silenceDurationMs, prefixPaddingMs: prefixPaddingMs)
    }
}
