/// Operator-connection methods clawtalk may call (protocol.md §14). Optional ones are
/// called only when listed in `hello-ok.features.methods`.
public enum OperatorMethod: String, Sendable, Hashable, CaseIterable {
    /// Send a user turn to a session.
    case chatSend = "chat.send"
    /// Read a session's history.
    case chatHistory = "chat.history"
    /// Start an agent run.
    case agent
    /// Read Talk configuration.
    case talkConfig = "talk.config"
    /// Synthesize with the Talk provider.
    case talkSpeak = "talk.speak"
    /// Report Talk mode state.
    case talkMode = "talk.mode"
    /// List Talk session capabilities.
    case talkCatalog = "talk.catalog"
    /// Open a Talk session (transcription relay, talk.md §9.1; realtime relay, talk.md §9.2).
    case talkSessionCreate = "talk.session.create"
    /// Append audio, in the format the session states, to a Talk session.
    case talkSessionAppendAudio = "talk.session.appendAudio"
    /// Close a Talk session.
    case talkSessionClose = "talk.session.close"
    /// Cancel a realtime reply on barge-in (talk.md §9.2).
    case talkSessionCancelOutput = "talk.session.cancelOutput"
    /// Acknowledge a realtime mark once its audio played.
    case talkSessionAcknowledgeMark = "talk.session.acknowledgeMark"
    /// The same on older gateways.
    case talkRealtimeRelayMark = "talk.realtime.relayMark"
    /// Answer a realtime tool call.
    case talkSessionSubmitToolResult = "talk.session.submitToolResult"
    /// Synthesize with the global TTS chain.
    case ttsSpeak = "tts.speak"
    /// TTS status.
    case ttsStatus = "tts.status"
    /// TTS providers.
    case ttsProviders = "tts.providers"
    /// Read the global wake-word list.
    case voiceWakeGet = "voicewake.get"
    /// Replace the global wake-word list.
    case voiceWakeSet = "voicewake.set"
    /// Read wake routing (there is no setter: `voicewake.routing.set` is gone upstream, protocol.md §14).
    case voiceWakeRoutingGet = "voicewake.routing.get"

    /// Client-side timeout in milliseconds (talk.md §8); `talk.speak` depends on the
    /// text (see ``TalkSpeakParams/timeoutMs(forCharacterCount:)``), others use the generic
    /// 15 s.
    public var defaultTimeoutMs: Int {
        switch self {
        case .talkConfig, .voiceWakeGet, .voiceWakeRoutingGet: 8_000
        case .chatSend: 30_000
        case .ttsSpeak: 60_000
        case .talkSpeak: 95_000
        case .talkSessionCreate: 20_000
        case .talkSessionAppendAudio: 8_000
        default: 15_000
        }
    }
}
