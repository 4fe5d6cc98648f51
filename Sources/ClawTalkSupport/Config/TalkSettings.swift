/// Talk mode (`talk.*`).
public struct TalkSettings: Sendable, Equatable {
    /// Silence that ends an utterance, in milliseconds (at least 2000 is used for ko, ja, zh).
    /// Default 700.
    public var silenceTimeoutMs = 700
    /// Speech during playback interrupts it (needs echo control). Default true.
    public var interruptOnSpeech = true
    /// Leave Talk after this many seconds without user speech. Default nil: never.
    public var idleTimeoutS: Int? = nil
    /// Session key for transcripts. Default nil: the gateway's main session (`main`).
    public var sessionKey: String? = nil
    /// Opt in to realtime Talk over the gateway relay when the gateway's `talk.realtime` asks for
    /// it (talk.md §9.2): Talk-session microphone audio then goes to the gateway's provider.
    /// Default false, as upstream macOS asks its users.
    public var realtimeRelay = false

    /// Creates the defaults.
    public init() {}

    /// ``silenceTimeoutMs`` as a duration.
    public var silenceTimeout: Duration { .milliseconds(silenceTimeoutMs) }
    /// ``idleTimeoutS`` as a duration, nil when off.
    public var idleTimeout: Duration? { idleTimeoutS.map { .seconds($0) } }

    /// The silence window for `locale`: ``silenceTimeoutMs``, raised to 2000 ms for Korean,
    /// Japanese and Chinese.
    public func silenceTimeout(locale: String?) -> Duration {
        let language = (locale ?? "").lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first
        if let language, ["ko", "ja", "zh"].contains(String(language)) {
            return .milliseconds(max(silenceTimeoutMs, 2000))
        }
        return silenceTimeout
    }
}
