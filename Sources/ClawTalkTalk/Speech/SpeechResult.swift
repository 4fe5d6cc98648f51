/// How a ``SpeechOutput/speak(_:directive:purpose:)`` call ended.
public struct SpeechResult: Sendable, Equatable {
    /// The overall outcome.
    public enum Outcome: Sendable, Equatable {
        /// Everything synthesized was played to the end.
        case finished
        /// Stopped (barge-in, push-to-talk, a newer reply) before the end.
        case interrupted
        /// Nothing could be played; the reason is one line (logged, error earcon played).
        case failed(String)
        /// There was nothing to say (empty text).
        case silent
    }

    /// The outcome.
    public var outcome: Outcome
    /// Seconds of speech heard.
    public var playedSeconds: Double
    /// The engine of each synthesized request, in order.
    public var engines: [SpeechEngine]
    /// One line per request that produced no audio.
    public var failures: [String]

    /// A result with the given values.
    public init(outcome: Outcome, playedSeconds: Double = 0, engines: [SpeechEngine] = [], failures: [String] = []) {
        self.outcome = outcome
        self.playedSeconds = playedSeconds
        self.engines = engines
        self.failures = failures
    }
}

/// Which synthesizer produced a piece of speech (talk.md §7.5).
public enum SpeechEngine: String, Sendable, Hashable, CaseIterable {
    /// The gateway's Talk provider (`talk.speak`).
    case talkSpeak = "talk.speak"
    /// The gateway's global TTS chain (`tts.speak`).
    case ttsSpeak = "tts.speak"
    /// espeak-ng on this machine.
    case espeak = "espeak-ng"
}

/// What the speech is, which picks the first link of the chain (talk.md §7.3, §7.5).
public enum SpeechPurpose: String, Sendable, Hashable, CaseIterable {
    /// An assistant reply or `clawtalk say`: `talk.speak` first, with the directive's voice.
    case reply
    /// "Read this message": the global `tts.speak` chain first.
    case readAloud
}
