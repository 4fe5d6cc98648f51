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
    /// Let the keyword scorer's acoustic heads wake the brand triggers (`openclaw`, `claude`)
    /// beside its transcript. Default true; false scores them by the transcript alone (fewer
    /// wakes on near misses such as "open cloth", many more misses in noise).
    public var acousticHeads = true
    /// Who runs the Whisper keyword scorer (`clawtalk-wake`). Default `auto`: `clawtalk run`
    /// starts the installed one on a private Unix socket, or uses the address the user configured.
    public var scorer = SpeechServerMode.auto
    /// Host of a keyword scorer the user runs (with ``scorerPort``, default 10401). Default nil:
    /// the node's own.
    public var scorerHost: String? = nil
    /// TCP port of a keyword scorer the user runs (with ``scorerHost``, default `127.0.0.1`).
    /// Default nil.
    public var scorerPort: Int? = nil
    /// Unix socket of a keyword scorer the user runs; wins over host and port. Default nil.
    public var scorerSocket: String? = nil

    /// Creates the defaults.
    public init() {}

    /// Where `wake.scorer: external` looks when no address is configured: `127.0.0.1:10401`.
    public static let defaultExternalAddress = WyomingAddress.tcp(host: "127.0.0.1", port: 10401)

    /// The address the user configured (`wake.scorerSocket`, else `wake.scorerHost` and/or
    /// `wake.scorerPort`), nil when none is.
    public var configuredAddress: WyomingAddress? {
        if let scorerSocket { return .unix(path: scorerSocket) }
        guard scorerHost != nil || scorerPort != nil else { return nil }
        return .tcp(host: scorerHost ?? "127.0.0.1", port: scorerPort ?? 10401)
    }

    /// Whether the scorer is the node's own on its private socket (`auto`, no address configured).
    public var usesOwnServer: Bool { scorer == .auto && configuredAddress == nil }

    /// Where the keyword scorer is: the configured address, else the node's own socket
    /// (`$XDG_RUNTIME_DIR/clawtalk/wake.sock`; ``defaultExternalAddress`` for `external`).
    public func address(paths: XDGPaths) -> WyomingAddress {
        if let configuredAddress { return configuredAddress }
        return scorer == .external ? Self.defaultExternalAddress : .unix(path: paths.wakeSocket)
    }
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
