/// The barge-in onset decision while a reply plays (talk.md §5.5, the fast path of talk.md §10):
/// whether a frame of the echo-cancelled capture starts a voice over the reply, or is the reply's
/// own echo. Pure and value-typed: frames in, a ``Verdict`` out, no clock (time is counted in
/// seconds of captured audio).
///
/// It owns the evidence: the hold-off while the canceller converges, the current speech run
/// (its length, level and loudest frame), the residual echo level an onset must stand out from,
/// and the double-talk test against the far end (``EchoPathEstimate``, learned across replies,
/// with its level and band views). ``TalkModeStateMachine`` feeds it every frame while it speaks
/// and pauses the reply on ``Verdict/onset``; the transcript rule that confirms a barge-in is
/// ``BargeInDecision``. ``RealtimeOnsetDetector`` uses it over realtime output.
///
/// An onset is ``TalkModeConfiguration/bargeInOnset`` of speech that stands out from the residual
/// echo, or ``TalkModeConfiguration/bargeInFastOnset`` of speech that stands out by
/// ``TalkModeConfiguration/bargeInFastLevelFactor``. With the double-talk test's evidence that
/// the run is more than the echo (``hasVoiceEvidence(bySmoothedLevel:)``), the fast onset may go
/// by the run's loudest frame (a voice's rise); a run the echo explains is an onset only once it
/// lasts ``TalkModeConfiguration/bargeInEchoOnset``, and then by its smoothed level alone (one
/// loud frame of echo is no voice). With two frames measured over the echo's margin, the fast
/// onset needs only the normal level.
public struct BargeInDetector: Sendable {
    /// What one frame means for the reply.
    public enum Verdict: String, Sendable, Hashable, CaseIterable {
        /// No speech counted: the front end heard none, or the reply's start (or resumption) is
        /// within ``TalkModeConfiguration/bargeInHoldOff`` while the canceller converges.
        case quiet
        /// Speech, not (or not yet) an onset, or heard while no onset is watched for.
        case speech
        /// The current speech run is an onset: pause the reply and judge it.
        case onset
        /// The run is an onset by length and level, but the double-talk test takes it for the
        /// reply's echo (the first such frame of a run; counted in ``onsetsHeldBack``).
        case heldBack
    }

    /// The current speech run (consecutive frames of counted speech) as the onset rules see it.
    public struct Run: Sendable, Hashable {
        /// Seconds of speech in the run.
        public var seconds = 0.0
        /// The run's recent level: its RMS smoothed over about the last 0.1 s.
        public var recentLevel = 0.0
        /// The run's loudest frame's RMS (the fast onset's level: the smoothed level lags a
        /// voice's rise by several frames).
        public var loudestLevel = 0.0
        /// Seconds whose raw capture the echo path does not explain
        /// (``EchoPathEstimate/heardBeyondEcho(_:)``: over ``EchoPathEstimate/margin``, or no
        /// test possible).
        public var secondsOverEcho = 0.0
        /// Seconds that the test measured over ``EchoPathEstimate/margin`` (a reference, an
        /// audible far end and a learned echo path): untested frames do not count.
        public var secondsMeasuredOverEcho = 0.0
        /// Seconds ``EchoPathEstimate/clearMargin`` over the echo (or with no test): one frame
        /// of it is evidence on its own.
        public var secondsClearlyOverEcho = 0.0
        /// Seconds with a band ``EchoPathEstimate/bandMargin`` over its echo
        /// (``EchoPathEstimate/heardInBandsBeyondEcho(_:)``): one frame is evidence on its own.
        public var secondsOverEchoInABand = 0.0
        /// The highest input over the learned echo (``EchoPathEstimate/excess(_:)``; 0: none
        /// measured), for the logs.
        public var highestEchoExcess = 0.0
        /// The highest band ratio over its echo (``EchoPathEstimate/bandExcess(_:)``; 0: none
        /// measured), for the logs.
        public var highestBandExcess = 0.0
        /// The largest share of the input's power the band gains do not explain (0: none
        /// measured), for the logs.
        public var highestUnexplainedShare = 0.0
        /// The run met an onset's length and level but the double-talk test held it back.
        public var isHeldBack = false
    }

    /// Seconds of a speech run that the echo path must fail to explain for the run to be an
    /// onset before ``TalkModeConfiguration/bargeInEchoOnset``: one 20 ms frame
    /// ``EchoPathEstimate/clearMargin`` above the echo, or two ``EchoPathEstimate/margin`` above
    /// in a run whose smoothed level passes too (see ``hasVoiceEvidence(bySmoothedLevel:)``).
    static let voiceEvidence = 0.02

    /// The onset timings and levels (the `bargeIn…` figures; the rest is not used).
    public let configuration: TalkModeConfiguration
    /// The double-talk test's echo path, learned over every reply (``replyStarted()`` keeps it).
    public internal(set) var echoPath = EchoPathEstimate()
    /// The current speech run.
    public private(set) var run = Run()
    /// Speech runs held back by the double-talk test (``Verdict/heldBack``) since the reply began.
    public private(set) var onsetsHeldBack = 0
    /// Seconds since the last frame of counted speech (infinite: none since the reply began).
    public private(set) var secondsSinceSpeech = Double.infinity
    /// Seconds since the last frame of speech that stood out from the residual echo (the
    /// interrupting voice, not the reply's echo): where an interrupting turn's speech ends.
    public private(set) var secondsSinceLoudSpeech = Double.infinity

    /// Seconds of the reply heard so far.
    private var replySeconds = 0.0
    /// Seconds since the first frame that held the reply's sound (nil: none yet), when the frames
    /// say so (``framesTellEcho``): the reply's audio reaches the microphone only after its
    /// synthesis and the sink's latency, and the canceller converges from there.
    private var secondsSinceEchoArrived: Double?
    /// Frames say whether the reply's sound is in them.
    private var framesTellEcho = false
    /// Seconds since the reply last resumed from a pause.
    private var secondsSinceResume = Double.infinity
    /// The hold-off after the last resume (``replyResumed(holdOff:)``).
    private var resumeHoldOff = 0.0
    /// The sum and count of the residual echo's frame levels (``residualEchoLevel``).
    private var residualSum = 0.0
    private var residualFrames = 0

    /// A detector with no reply heard yet and an unlearned echo path.
    public init(configuration: TalkModeConfiguration = TalkModeConfiguration()) {
        self.configuration = configuration
    }

    /// The mean level (RMS) of the reply's frames while no onset was judged: the residual echo
    /// an onset must stand out from (0: none heard).
    public var residualEchoLevel: Double { residualFrames == 0 ? 0 : residualSum / Double(residualFrames) }

    /// A reply starts (or plays again after push-to-talk): everything but the echo path is new.
    public mutating func replyStarted() {
        self = Self(configuration: configuration, echoPath: echoPath)
    }

    private init(configuration: TalkModeConfiguration, echoPath: EchoPathEstimate) {
        self.configuration = configuration
        self.echoPath = echoPath
    }

    /// The reply resumed from a pause: like a new one, its residual echo starts no onset while the
    /// canceller re-converges, for `holdOff` seconds of captured audio (nil:
    /// ``TalkModeConfiguration/bargeInHoldOff``). The residual level and the echo path stay.
    public mutating func replyResumed(holdOff: Double? = nil) {
        secondsSinceResume = 0
        resumeHoldOff = holdOff ?? configuration.bargeInHoldOff
    }

    /// The current run ends here (its onset was judged): the next speech frame starts a new one.
    public mutating func endRun() {
        run.seconds = 0
    }

    /// Judges one capture frame of `seconds` with the front end's speech decision and level (nil:
    /// not known, no level rule). `echo` says whether the reply's sound may be in the frame (nil:
    /// not known): the hold-off then counts from the first frame with it, and the residual level
    /// only over such frames. `reference` feeds the double-talk test (nil: no test). While
    /// `judging` (an onset is being judged: the reply paused, or a check runs), frames teach
    /// neither the echo path nor the residual level: a slow check would otherwise raise the bar
    /// with the very voice it judges. Onsets are looked for only while `watching`.
    public mutating func frame(
        isSpeech: Bool, seconds: Double, rms: Double?, echo: Bool? = nil, reference: EchoReference? = nil,
        judging: Bool = false, watching: Bool = true
    ) -> Verdict {
        // The echo path is learned on frames of the reply's echo that hold no voice.
        if let reference, !isSpeech, !judging, echo != false {
            echoPath.learn(reference)
        }
        replySeconds += seconds
        if let echo {
            framesTellEcho = true
            if let since = secondsSinceEchoArrived {
                secondsSinceEchoArrived = since + seconds
            } else if echo {
                secondsSinceEchoArrived = seconds
            }
        }
        // The reply's first half second at the microphone: the canceller converges.
        let heardOfReply = framesTellEcho ? (secondsSinceEchoArrived ?? 0) : replySeconds
        secondsSinceResume += seconds
        let counted = isSpeech && heardOfReply > configuration.bargeInHoldOff + 1e-9
        if counted {
            count(seconds: seconds, rms: rms, reference: reference)
        } else {
            run.seconds = 0
            run.recentLevel = 0
            secondsSinceSpeech += seconds
            secondsSinceLoudSpeech += seconds
        }
        // The residual echo's level, without the voice being judged and without the frames
        // before the reply's sound arrived (their silence would lower it).
        if let rms, !judging, echo != false {
            residualSum += rms
            residualFrames += 1
        }
        // A resumed reply restarts after silence, like a new one: while the canceller
        // re-converges its residual echo starts no onset.
        if secondsSinceResume <= resumeHoldOff + 1e-9 { run.seconds = 0 }
        guard counted else { return .quiet }
        guard watching else { return .speech }
        return judgeRun(rms)
    }

    /// Adds a frame of counted speech to the run.
    private mutating func count(seconds: Double, rms: Double?, reference: EchoReference?) {
        // The run's recent level (about the last 0.1 s).
        let level = rms ?? 0
        run.recentLevel = run.seconds == 0 ? level : run.recentLevel + (level - run.recentLevel) * min(1, seconds / 0.1)
        if run.seconds == 0 {
            run = Run(seconds: 0, recentLevel: run.recentLevel)
        }
        run.loudestLevel = max(run.loudestLevel, level)
        if echoPath.heardBeyondEcho(reference) { run.secondsOverEcho += seconds }
        if let excess = echoPath.excess(reference), excess > EchoPathEstimate.margin {
            run.secondsMeasuredOverEcho += seconds
        }
        if echoPath.heardClearlyBeyondEcho(reference) { run.secondsClearlyOverEcho += seconds }
        run.highestEchoExcess = max(run.highestEchoExcess, echoPath.excess(reference) ?? 0)
        if let bands = echoPath.bandExcess(reference) {
            run.highestBandExcess = max(run.highestBandExcess, bands.highest)
            run.highestUnexplainedShare = max(run.highestUnexplainedShare, bands.unexplained)
        }
        if echoPath.heardInBandsBeyondEcho(reference) { run.secondsOverEchoInABand += seconds }
        run.seconds += seconds
        secondsSinceSpeech = 0
        secondsSinceLoudSpeech = loudEnough(rms) ? 0 : secondsSinceLoudSpeech + seconds
    }

    /// Whether the current run has the double-talk test's evidence of a voice
    /// (``voiceEvidence``). One frame ``EchoPathEstimate/clearMargin`` above the echo is
    /// enough, even for an onset by the run's loudest frame, and so is one frame whose bands the
    /// echo does not explain (``EchoPathEstimate/heardInBandsBeyondEcho(_:)``: a voice as loud as
    /// the echo stands out where the reply is quiet; the slowest pauses waited 40–120 ms for the
    /// level evidence). Two frames at ``EchoPathEstimate/margin`` count only when the run's
    /// smoothed level passes its bar as well: a run whose loudest frame alone passes, with two
    /// frames at ×1.45 over the echo and a smoothed level a third of the floor, was the one false
    /// pause in 1.08 h of reading on a loaded machine (bench, 2026-12-05).
    func hasVoiceEvidence(bySmoothedLevel: Bool) -> Bool {
        run.secondsClearlyOverEcho >= Self.voiceEvidence - 1e-9
            || run.secondsOverEchoInABand >= Self.voiceEvidence - 1e-9
            || (bySmoothedLevel && run.secondsOverEcho >= 2 * Self.voiceEvidence - 1e-9)
    }

    /// Whether the current speech run is an onset (see the type's rules). A run that is an onset
    /// by length and level but that the double-talk test holds back is counted once in
    /// ``onsetsHeldBack``.
    private mutating func judgeRun(_ rms: Double?) -> Verdict {
        let length = run.seconds + 1e-9
        let fast = rms != nil && length >= configuration.bargeInFastOnset
        let bySmoothedLevel =
            (length >= configuration.bargeInOnset && loudEnough(rms))
            || (fast && loudEnough(rms, factor: configuration.bargeInFastLevelFactor))
        let byPeak = fast && loudEnough(rms, level: run.loudestLevel, factor: configuration.bargeInFastLevelFactor)
        // Two frames over the echo margin are the double-talk test's evidence of a voice: with
        // it, the fast onset needs only the normal level (a voice rising, not yet 4 × the
        // residual, waited for the full onset: 80–140 ms into the run, bench 2026-12-05).
        // Measured evidence only: with no test (no reference, a silent far end) nothing changes.
        let byEvidence =
            fast && loudEnough(rms) && run.secondsMeasuredOverEcho >= 2 * Self.voiceEvidence - 1e-9
        if byEvidence { return .onset }
        guard bySmoothedLevel || byPeak else { return .speech }
        // Double talk: a run that the echo path explains throughout (a burst of echo that the
        // canceller let through) is an onset only once it lasts ``bargeInEchoOnset``.
        if hasVoiceEvidence(bySmoothedLevel: bySmoothedLevel) { return .onset }
        if length >= configuration.bargeInEchoOnset, bySmoothedLevel { return .onset }
        guard !run.isHeldBack else { return .speech }
        onsetsHeldBack += 1
        run.isHeldBack = true
        return .heldBack
    }

    /// Whether the current speech run stands out from the residual echo: its recent level (or
    /// `level`) at least `factor` (``TalkModeConfiguration/bargeInLevelFactor``) × the residual
    /// echo level and ``TalkModeConfiguration/bargeInMinimumLevel`` (no level rule without levels).
    private func loudEnough(_ rms: Double?, level: Double? = nil, factor: Double? = nil) -> Bool {
        guard rms != nil else { return true }
        let factor = factor ?? configuration.bargeInLevelFactor
        return (level ?? run.recentLevel) >= max(residualEchoLevel * factor, configuration.bargeInMinimumLevel)
    }
}
