public import ClawTalkProtocol

/// One scripted answer to an operator request.
public enum ScriptedReply: Sendable, Equatable {
    /// `ok:true` with this payload.
    case ok(WireJSON)
    /// `ok:false` with this error.
    case error(ErrorShape)
    /// A `talk.speak` / `tts.speak` result carrying this clip.
    case clip(TestClip)
    /// No response at all (the client's timeout must fire).
    case noReply
    /// The inner reply after `ms` milliseconds.
    indirect case delayed(ms: Int, ScriptedReply)

    /// `UNAVAILABLE` with `details {reason, fallbackEligible?}` (talk.md §7.1).
    public static func talkSpeakUnavailable(_ reason: TalkSpeakFailureReason, fallbackEligible: Bool?) -> ScriptedReply
    {
        var details: WireObject = ["reason": .string(reason.rawValue)]
        if let fallbackEligible { details["fallbackEligible"] = .bool(fallbackEligible) }
        return .error(
            ErrorShape(
                code: "UNAVAILABLE", message: "talk.speak unavailable: \(reason.rawValue)", details: .object(details)))
    }

    /// `UNAVAILABLE` without details.
    public static func unavailable(_ message: String) -> ScriptedReply {
        .error(ErrorShape(code: "UNAVAILABLE", message: message))
    }
}

/// One step of a scripted chat run (talk.md §4.1, §4.3). Streamed texts are cumulative:
/// a `delta` (or `agentText`) whose text does not extend the previous one of its stream restarts
/// the reply (a new LLM call inside the run), marked or not as
/// ``TestGatewayConfiguration/chatDeltaForm`` says.
public enum ChatScriptStep: Sendable, Equatable {
    /// `chat` `state:"delta"` with this (cumulative) text.
    case delta(String)
    /// `chat` `state:"final"` with this text; appended to the session history.
    case final(String)
    /// `chat` `state:"aborted"`.
    case aborted
    /// `chat` `state:"error"` with this `errorMessage`.
    case error(String)
    /// `agent` `stream:"assistant"` with `data.text` (operators only).
    case agentText(String)
    /// `agent` `stream:"lifecycle"` with `data.phase:"end"` (operators only).
    case agentEnd
    /// Wait this many milliseconds before the next step.
    case pause(ms: Int)
}

/// Defaults for the operator surface of talk.md §11; per-request overrides go through
/// ``TestGateway/enqueueReply(_:for:)`` and ``TestGateway/enqueueChatRun(_:)``.
public struct OperatorScript: Sendable {
    /// Steps of a chat run when no run is queued (`[]` = no events at all).
    public var chatRun: [ChatScriptStep] = [.agentText("Hello"), .delta("Hello"), .final("Hello there."), .agentEnd]
    /// Seed history per session key: message objects `{role, content, timestamp}`.
    public var history: [String: [WireJSON]] = [:]
    /// Initial global wake-word list.
    public var voiceWakeTriggers: [String] = VoiceWakeTriggers.defaults
    /// Initial wake routing config.
    public var voiceWakeRouting: WireJSON = [
        "version": 1, "defaultTarget": ["mode": "current"], "routes": [], "updatedAtMs": 0,
    ]
    /// Default `talk.speak` answer.
    public var talkSpeak: ScriptedReply = .clip(.pcm24000())
    /// Default `tts.speak` answer.
    public var ttsSpeak: ScriptedReply = .clip(
        TestClip(audio: TestClip.pcm24000().audio, provider: "espeak", outputFormat: "pcm_24000"))
    /// `tts.maxTextLength`: longer `tts.speak` texts fail "text too long".
    public var ttsMaxTextLength = 4_096
    /// The provider API key `talk.config` redacts (returned only with `includeSecrets`).
    public var talkAPIKey = "sk-test-0123456789"
    /// `talk.config` `config` object; `{apiKey}` placeholders are filled per request.
    public var talkConfig: WireJSON = [
        "talk": [
            "provider": "elevenlabs",
            "providers": [
                "elevenlabs": [
                    "voiceId": "voice-test-1", "voiceAliases": ["nova": "voice-nova-2"], "modelId": "eleven_v3",
                    "outputFormat": "pcm_24000",
                ]
            ],
            "resolved": ["provider": "elevenlabs", "config": [:]],
            "speechLocale": "en-US", "interruptOnSpeech": true, "silenceTimeoutMs": 700,
        ],
        "session": ["mainKey": "main"],
    ]

    /// Whether `talk.catalog` reports the transcription relay as ready.
    public var transcriptionReady = true
    /// Which transcription relay the gateway emulates (default: current upstream's).
    public var relayForm = TestRelayForm.current
    /// What the emulated transcription relay hears in one speech segment (mono samples at the
    /// given rate: 8000 for ``TestRelayForm/current``, 24000 for ``TestRelayForm/legacy``); the
    /// default answers ``relayTranscript`` whatever was said. Tests can plug a real engine.
    public var relayTranscriber: @Sendable ([Int16], _ sampleRate: Int) async -> String = { _, _ in "" }
    /// ``TestRelayForm/current``: the `audio.inputEncoding` the session states, when not
    /// `g711_ulaw` (to test a format the client cannot produce; the audio is still read as μ-law).
    public var relayStatedEncoding: String?
    /// ``TestRelayForm/current``: how long after `talk.session.close` the finals come (upstream
    /// drains for up to 5 s).
    public var relayDrainDelayMs = 100
    /// The default relay's answer when ``relayTranscriber`` is not replaced (and returns "").
    public var relayTranscript = "hello from the relay"
    /// Delay before each `talk.session.appendAudio` is answered (exposes the client's in-flight limit).
    public var relayAppendDelayMs = 0
    /// Whether the relay sends `ready` after `talk.session.create`.
    public var relaySendsReady = true
    /// The emulated realtime provider (talk.md §9.2).
    public var realtime = TestRealtimeScript()

    /// The defaults.
    public init() {}
}
