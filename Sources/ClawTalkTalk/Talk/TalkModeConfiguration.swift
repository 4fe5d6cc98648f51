public import ClawTalkProtocol
public import ClawTalkSpeech
public import ClawTalkSupport

/// The timings and policies of Talk mode (talk.md §5, §10). Times are in seconds of
/// captured audio, so the state machine needs no clock.
public struct TalkModeConfiguration: Sendable, Hashable {
    /// Silence after speech that ends a turn (`talk.silenceTimeoutMs`, 0.7 s; ≥ 2 s for ko, ja, zh).
    public var silenceWindow: Double
    /// Leave Talk after this long listening without speech (`talk.idleTimeoutS`; nil: never).
    public var idleTimeout: Double?
    /// Whether speech may interrupt playback.
    public var bargeIn: TalkModeStateMachine.BargeInMode
    /// Continuous speech during playback that pauses it (fast path, 0.15 s).
    public var bargeInOnset: Double
    /// Continuous speech that pauses playback sooner when it is clearly a voice over the
    /// residual echo (0.06 s): its level at least ``bargeInFastLevelFactor`` × the reply's mean
    /// level (and ``bargeInMinimumLevel``). A voice close to the microphone is; the residual
    /// echo that the detector takes for speech stays near its mean.
    public var bargeInFastOnset: Double
    /// The level factor of ``bargeInFastOnset`` (4 = 12 dB).
    public var bargeInFastLevelFactor: Double
    /// Continuous speech that pauses playback even when the double-talk test finds nothing but
    /// the node's own echo at the microphone (0.25 s, ``EchoPathEstimate``): longer than the
    /// bursts of echo that a canceller losing its alignment lets through (60–150 ms on the rig),
    /// so a voice that the test misses (as quiet as the echo) still interrupts, only later.
    public var bargeInEchoOnset: Double
    /// Speech in the first part of the reply does not count (0.5 s, from the first frame that
    /// holds the reply's sound when the frames say so, else from the reply's start): the echo
    /// canceller re-converges when a reply starts after silence, and its residual echo there
    /// was taken for speech on the test rig (like the relay's "not in the first 250 ms", talk.md §9).
    public var bargeInHoldOff: Double
    /// While speaking, an onset's speech run must have a mean level at least this factor over
    /// the mean level of the speaking phase so far (2 = 6 dB): residual echo that the voice
    /// activity detector takes for speech stays near that mean, a voice over it does not.
    public var bargeInLevelFactor: Double
    /// …and at least this level (RMS, 0.015 ≈ −36 dBFS). Chosen on the null-sink rig, where
    /// runs of residual echo measured 0.003–0.011 and the interrupting voice 0.024–0.035; a quiet
    /// microphone may need less.
    public var bargeInMinimumLevel: Double
    /// A turn needs at least this much speech (0.2 s); shorter bursts (a click, residual echo
    /// as a reply ends) are dropped without transcribing, so listening goes on.
    public var minimumSpeech: Double
    /// Audio collected after the pause before the barge-in transcription starts (0.4 s).
    public var bargeInListen: Double
    /// Paused playback resumes unless a barge-in is confirmed within this time (1 s); a
    /// later confirmation still stops it.
    public var bargeInConfirmWindow: Double
    /// Longest turn; the capture is then finalized as if silence followed (60 s).
    public var maximumUtterance: Double
    /// Audio kept before the first speech of a turn when it is transcribed (0.3 s).
    public var leadIn: Double
    /// Longest wait for a turn's transcription (and a barge-in check). Generous: on a busy
    /// machine Whisper base took over 10 s for a 3 s turn queued behind a check, and a turn that
    /// times out is lost; a late turn is not.
    public var transcriptionTimeout: Duration
    /// Language and prompt for the transcriber.
    public var transcription: TranscriptionOptions
    /// Silence after speech at which the turn is transcribed ahead of its end, with an
    /// end-of-turn verdict (0.2 s; nil: never): a turn that the verdict calls complete ends
    /// then, without waiting for ``silenceWindow`` (talk.md §5.4: "a final result also ends
    /// it"), and one that goes on to the window finds its transcript ready.
    public var speculateAfter: Double? = 0.2
    /// The end-of-turn probability at which a speculative transcription ends the turn (0.5).
    public var turnCompleteThreshold = 0.5
    /// Audio kept before the first speech of a turn that is no barge-in (0.5 s, as push-to-talk's
    /// margin): the voice detector calls speech late on a soft first syllable, and turns cut
    /// 0.3 s before it lost first words ("Add milk" heard as "and milk").
    public var turnLeadIn = 0.5

    /// A configuration; see each property for its default.
    public init(
        silenceWindow: Double = 0.7, idleTimeout: Double? = nil, bargeIn: TalkModeStateMachine.BargeInMode = .enabled,
        bargeInOnset: Double = 0.15, bargeInFastOnset: Double = 0.06, bargeInFastLevelFactor: Double = 4,
        bargeInEchoOnset: Double = 0.25, bargeInHoldOff: Double = 0.5, bargeInLevelFactor: Double = 2,
        bargeInMinimumLevel: Double = 0.015,
        minimumSpeech: Double = 0.2, bargeInListen: Double = 0.4, bargeInConfirmWindow: Double = 1.0,
        maximumUtterance: Double = 60, leadIn: Double = 0.3, transcriptionTimeout: Duration = .seconds(30),
        transcription: TranscriptionOptions = TranscriptionOptions()
    ) {
        self.silenceWindow = silenceWindow
        self.idleTimeout = idleTimeout
        self.bargeIn = bargeIn
        self.bargeInOnset = bargeInOnset
        self.bargeInFastOnset = bargeInFastOnset
        self.bargeInFastLevelFactor = bargeInFastLevelFactor
        self.bargeInEchoOnset = bargeInEchoOnset
        self.bargeInHoldOff = bargeInHoldOff
        self.bargeInLevelFactor = bargeInLevelFactor
        self.bargeInMinimumLevel = bargeInMinimumLevel
        self.minimumSpeech = minimumSpeech
        self.bargeInListen = bargeInListen
        self.bargeInConfirmWindow = bargeInConfirmWindow
        self.maximumUtterance = maximumUtterance
        self.leadIn = leadIn
        self.transcriptionTimeout = transcriptionTimeout
        self.transcription = transcription
    }

    /// The configuration for the user's settings: the silence window for `locale`, the idle
    /// timeout, and barge-in when `talk.interruptOnSpeech` holds and `echoControlled` (AEC
    /// active or the output isolated), else half-duplex.
    public init(settings: Settings, locale: String?, echoControlled: Bool) {
        let language = settings.stt.language ?? locale
        self.init(
            silenceWindow: settings.talk.silenceTimeout(locale: language).inSeconds,
            idleTimeout: settings.talk.idleTimeoutS.map(Double.init),
            bargeIn: settings.talk.interruptOnSpeech && echoControlled ? .enabled : .halfDuplex,
            transcription: TranscriptionOptions(language: language))
    }

    /// This configuration with the gateway's `talk.config` applied where the local settings
    /// leave room: its idle timeout when none is set locally, and its `interruptOnSpeech: false`
    /// turning barge-in off.
    public func applying(_ config: TalkConfig?, localIdleTimeout: Double?) -> TalkModeConfiguration {
        var copy = self
        copy.idleTimeout = localIdleTimeout ?? config?.idleTimeoutS
        if config?.interruptOnSpeech == false { copy.bargeIn = .halfDuplex }
        return copy
    }
}
