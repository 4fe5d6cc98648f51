public import ClawTalkSpeech
public import ClawTalkSupport

/// The timings of push-to-talk (talk.md §2.6). The defaults are the contract's values.
public struct PTTConfiguration: Sendable, Hashable {
    /// `once`: silence after speech that ends the capture (`talk.silenceTimeoutMs`, 700 ms;
    /// at least 2000 ms for ko, ja, zh).
    public var silenceWindow: Duration
    /// `once`: longest capture (12 s), reduced so the result beats the invoke deadline.
    public var onceHardCap: Duration
    /// `once`: the hard cap ends at least this long before the invoke deadline (2 s).
    public var onceDeadlineMargin: Duration
    /// `ptt`: safety cap (`ptt.maxCaptureS`, 120 s); then it is finalized as if stopped.
    public var safetyCap: Duration
    /// `ptt` started by a gateway whose connection closed: longest wait for the next pause
    /// (10 s after the loss, talk.md §2.7); then it is finalized as if stopped.
    public var controllerLossCap: Duration
    /// Longest wait for the transcription of a stopped capture (the engines here are not
    /// streaming, so there is no partial to fall back on: the whole utterance is transcribed at
    /// the stop). Shortened so that a waiting invoke is still answered in time.
    public var transcriptionTimeout: Duration
    /// A waiting invoke is answered at least this long before its deadline (transcription and
    /// delivery are cut short for it).
    public var responseMargin: Duration
    /// Language and prompt given to the transcriber.
    public var transcription: TranscriptionOptions
    /// Silence after speech at which the capture is transcribed ahead of its end, with an
    /// end-of-turn verdict (200 ms; nil: never). A `once` whose verdict says complete ends then
    /// ("a final STT result", talk.md §2.6); a capture that ends later without more speech uses
    /// that transcript.
    public var speculateAfter: Duration? = .milliseconds(200)
    /// The end-of-turn probability at which a speculative transcription ends a `once` (0.5).
    public var turnCompleteThreshold = 0.5

    /// A configuration; see each property for its default.
    public init(
        silenceWindow: Duration = .milliseconds(700), onceHardCap: Duration = .seconds(12),
        onceDeadlineMargin: Duration = .seconds(2), safetyCap: Duration = .seconds(120),
        controllerLossCap: Duration = .seconds(10), transcriptionTimeout: Duration = .seconds(10),
        responseMargin: Duration = .milliseconds(500),
        transcription: TranscriptionOptions = TranscriptionOptions()
    ) {
        self.silenceWindow = silenceWindow
        self.onceHardCap = onceHardCap
        self.onceDeadlineMargin = onceDeadlineMargin
        self.safetyCap = safetyCap
        self.controllerLossCap = controllerLossCap
        self.transcriptionTimeout = transcriptionTimeout
        self.responseMargin = responseMargin
        self.transcription = transcription
    }

    /// The configuration for the user's settings: the silence window for `locale`
    /// (`talk.silenceTimeoutMs`, raised for CJK), the safety cap `ptt.maxCaptureS`, and the
    /// transcription language `stt.language` or `locale`.
    public init(settings: Settings, locale: String?) {
        let language = settings.stt.language ?? locale
        self.init(
            silenceWindow: settings.talk.silenceTimeout(locale: language), safetyCap: settings.ptt.maxCapture,
            transcription: TranscriptionOptions(language: language))
    }

    /// The `once` hard cap for an invoke that must be answered within `timeout` (nil: no deadline):
    /// 12 s, or `timeout − 2 s` when that is shorter (never below 1 s).
    public func onceCap(timeout: Duration?) -> Duration {
        guard let timeout else { return onceHardCap }
        return max(min(onceHardCap, timeout - onceDeadlineMargin), .seconds(1))
    }
}
