/// Voice wake (`wake.*`).
public struct WakeSettings: Sendable, Equatable {
    /// Listen for wake words. Default true.
    public var enabled = true
    /// Detector. Default `auto`: microWakeWord for triggers with a model, the Whisper keyword
    /// scorer for the others (PocketSphinx while the scorer does not answer).
    public var engine = WakeEngine.auto
    /// Where a wake command goes. Default `voice-transcript`.
    public var route = WakeRoute.voiceTranscript
    /// A wake command starts Talk mode as its first turn. Default false.
    public var startsTalk = false
    /// On the `agent` route, prefix the prompt with a line saying it came by voice. Default true.
    public var promptHint = true
    /// Sound after the trigger word. Default `builtin`.
    public var triggerChime = ChimeSource.builtin
    /// Sound when a command is sent. Default `builtin`.
    public var sendChime = ChimeSource.builtin
    /// Detection thresholds (probability 0–1) by wake model name, overriding each model's
    /// manifest cutoff. Default empty.
    public var thresholds: [String: Double] = [:]
    /// More spellings of a trigger for the Whisper keyword scorer, by trigger
    /// (`{ openclaw: ["Open Claw"] }`). Default empty: case variants and compound splits are
    /// always tried.
    public var aliases: [String: [String]] = [:]
    /// Who runs the Whisper keyword scorer (`clawtalk-wake`). Default `auto`: `clawtalk run`
    /// starts the installed one when none answers on this machine.
    public var scorer = SpeechServerMode.auto
    /// Host of the keyword scorer. Default `127.0.0.1`.
    public var scorerHost = "127.0.0.1"
    /// TCP port of the keyword scorer. Default 10401.
    public var scorerPort = 10401

    /// Creates the defaults.
    public init() {}
}

/// Wake word detector (`wake.engine`).
public enum WakeEngine: String, Sendable, CaseIterable {
    /// microWakeWord where a model exists, else the Whisper keyword scorer (PocketSphinx keyphrase
    /// spotting while the scorer does not answer).
    case auto
    /// microWakeWord (TFLite) only.
    case microwakeword
    /// PocketSphinx keyphrase spotting only.
    case pocketsphinx
}

/// Delivery route of a wake command (`wake.route`, talk.md §3.1).
public enum WakeRoute: String, Sendable, CaseIterable {
    /// `node.event voice.transcript` on the node connection.
    case voiceTranscript = "voice-transcript"
    /// Operator `chat.send`.
    case chatSend = "chat-send"
    /// Operator `agent` (macOS style).
    case agent
}
