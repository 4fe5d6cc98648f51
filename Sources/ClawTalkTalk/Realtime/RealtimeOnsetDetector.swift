/// The project's barge-in onset detector (talk.md §5.5) for realtime output: native Talk's
/// ``BargeInDetector`` (its hold-off while the canceller converges, the onset length and level
/// over the residual echo, the double-talk test), reporting the moment it would pause the reply,
/// and for each frame whether it is strong evidence of a voice beyond the echo
/// (``strongMargin``), which ``RealtimeBargeIn`` cancels on at once. A short sound it holds back
/// is no onset. Pure: frames in, an observation out.
///
/// The echo path (``EchoPathEstimate``) is learned across replies, as native Talk's state
/// machine keeps it: a fresh estimate for every reply (and after every rejected onset) knew only
/// the half second of the hold-off, so its upper envelope sat below the echo's louder moments
/// and residual echo passed the double-talk test (talk.md §9.2 "Barge-in").
public struct RealtimeOnsetDetector: Sendable {
    /// What one frame showed.
    public struct Observation: Sendable, Hashable {
        /// The onset of speech over the output (the detector then stops reporting onsets until
        /// ``RealtimeOnsetDetector/outputStarted()``; it keeps judging frames).
        public var onset = false
        /// The frame holds speech that the reply's echo cannot explain (``strongMargin`` over the
        /// learned echo; a band ``EchoPathEstimate/bandMargin`` over its echo, with the frame
        /// ``strongBandLevelFactor`` over the residual or its input ``EchoPathEstimate/margin`` over
        /// the echo; ``strongLevelFactor`` over the residual with the input
        /// ``EchoPathEstimate/margin`` and a band ``strongLevelBandMargin`` over the echo), measured:
        /// never on a frame without a reference or an audible far end to measure against (a resumed
        /// reply's first echo can precede its reference), nor before the echo path has learned
        /// from ``strongAfterFrames``.
        public var strong = false
        /// The frame stands out from the reply's residual echo as a voice does, by level alone
        /// (``strongLevelFactor`` over the residual, the input ``EchoPathEstimate/margin`` over the
        /// learned echo; measured, as ``strong``): weaker than ``strong`` frame by frame (a burst of
        /// echo the canceller let through can pass in a frame or two), evidence in a sustained run
        /// (``RealtimeBargeIn/Settings/voiceInARow``, ``RealtimeBargeIn/Settings/levelInRun``).
        public var level = false
        /// The frame's raw input stands ``overEchoMargin`` over the learned echo with its
        /// echo-cancelled level ``overEchoLevelFactor`` over the residual (measured, as ``strong``):
        /// a voice that the canceller took much of but the raw capture still shows, evidence in a
        /// sustained run (``RealtimeBargeIn/Settings/voiceInARow``).
        public var overEcho = false

        /// An observation record.
        public init(onset: Bool = false, strong: Bool = false, level: Bool = false, overEcho: Bool = false) {
            self.onset = onset
            self.strong = strong
            self.level = level
            self.overEcho = overEcho
        }
    }

    /// The current speech run as the double-talk test saw it (logs).
    public struct Evidence: Sendable, Hashable {
        /// Seconds of the run.
        public var run = 0.0
        /// Its loudest frame's RMS.
        public var peak = 0.0
        /// The reply's mean residual RMS.
        public var residual = 0.0
        /// The highest measured input over the learned echo (0: none measured).
        public var excess = 0.0
        /// The highest band ratio over its echo (0: none measured).
        public var bandExcess = 0.0
        /// Frames of the run that were strong evidence (``Observation/strong``).
        public var strongFrames = 0
        /// Frames of the run with a measured test.
        public var measuredFrames = 0
        /// The learned echo gain (nil: not learned).
        public var echoGain: Double?
        /// Frames of echo alone it was learned from.
        public var echoFrames = 0
        /// The newest frame's raw input level (0: no reference).
        public var input = 0.0
        /// The newest frame's far-end level (0: no reference).
        public var farEnd = 0.0
        /// The newest frame's echo-cancelled RMS.
        public var frameRms = 0.0
        /// The newest frame's input over the learned echo (0: not measured).
        public var frameExcess = 0.0
        /// The newest frame's highest band ratio over its echo (0: not measured).
        public var frameBand = 0.0
        /// Whether the newest frame was strong evidence.
        public var frameStrong = false
        /// The newest frame's seconds since an output write (nil: not known).
        public var sinceWrite: Double?
    }

    /// A frame's input this far above the learned echo (×2, 6 dB) is strong evidence of a voice:
    /// residual echo that the canceller let through reached ×1.26–1.28 in single frames on a
    /// loaded machine (bench, 2026-12-05), a band ×2.0.
    public static let strongMargin = 2.0

    /// A frame whose echo-cancelled level is this far over the reply's mean residual (×12,
    /// 21.6 dB) and whose input is ``EchoPathEstimate/margin`` over the learned echo is strong
    /// evidence too. On the rig (bench, 2026-12-06, 10 interruptions and 5 onsets of residual
    /// echo) the user's voice came only ×1.2–1.8 over the echo in the raw capture, as loud as
    /// echo bursts (×1.15–1.73), but its runs peaked at 13–68 × the residual (one at 6.2), those
    /// of the echo at 3.5–10.8.
    public static let strongLevelFactor = 12.0

    /// A band this far over its echo (×2) goes with the level rule: on a loaded machine one burst
    /// of echo reached 29 × the residual with the input ×1.57 over the echo, its bands at most
    /// ×1.89 (bench, 2026-12-06), and bursts the level test held reached at most ×2.0 in a band
    /// (2026-12-05).
    public static let strongLevelBandMargin = 2.0

    /// A band ``EchoPathEstimate/bandMargin`` over its echo is strong evidence only with the
    /// echo-cancelled level this far over the residual (×8), or the input
    /// ``EchoPathEstimate/margin`` over the echo: a voice the bands reveal is heard. At load 12 a
    /// capture glitch (an input of 0 in the next frame) gave two frames bands ×8.5–8.9 over their
    /// echo at 1.6 and 4.8 × the residual, the input 0.6–0.8 of the echo, and cancelled the reply
    /// (once in 30 min of reading alone; another such pair, 0.2 ×, in that run's probes); the
    /// interruptions' band-strong frames stood 13.6–40.9 × over the residual, or ×1.6 over the
    /// echo (bench, 2026-12-06).
    public static let strongBandLevelFactor = 8.0

    /// A frame's input this far over the learned echo (×1.5) with its echo-cancelled level
    /// ``overEchoLevelFactor`` over the residual is ``Observation/overEcho``. Two interruptions
    /// of 80 logged (bench, 2026-12-06) stood ×1.56–1.90 over the echo in the onset and the two
    /// frames after it, but under ×12 the residual in some, and waited 0.6 s for the
    /// confirmation; in the traces of 32 onsets of echo alone, speech frames reached ×1.5 twice,
    /// singly (×2.1 at 5.3 × the residual, ×1.5 at 2.1 ×): the nearest came to 0.76 of both
    /// figures.
    public static let overEchoMargin = 1.5

    /// The level factor of ``overEchoMargin`` (×6 over the residual, 15.6 dB): those frames of
    /// the two interruptions stood 6.4–17.2 × over it.
    public static let overEchoLevelFactor = 6.0

    /// Frames of echo alone the echo path must have learned from before any frame is strong
    /// evidence (10 s): the learned gain starts low (the first frames of a reply carry the far
    /// end before its sound reaches the microphone) and rises only on frames without speech; in
    /// a node's first minute it stood at a third of its later value, and echo passed ×2 over it
    /// (8 false cancels in the first 45 s of a bench run, 2026-12-06).
    public static let strongAfterFrames = 500

    /// Frames with nothing audible in the reference (``EchoPathEstimate/audibleFarEnd``) that make
    /// a gap in the reply (2, 40 ms): see ``afterGapFrames``.
    public static let gapFrames = 2

    /// Audible frames after a gap of ``gapFrames``, or after the output starved (``starvedAfter``),
    /// that are no evidence (6, 0.12 s): as a reply's sound comes back after its queue ran dry (a
    /// loaded machine) its echo and its reference do not line up yet: the sink's buffer is empty,
    /// so the sound plays sooner than the echo delay the reference assumes. In 30 min of reading alone at
    /// load 8–16 (bench, 2026-12-06, run I) the node cancelled its own reply four times, each on
    /// the 1st–6th audible frame after a gap of 2–11 frames (strong by a band ×4–12 or the input
    /// ×2.1–2.7 over the echo, 12–44 × the residual); of 111 logged interruptions two had their
    /// evidence there (they wait for the confirmation).
    public static let afterGapFrames = 6

    /// A frame's raw input below this (RMS, full scale 1) is digital silence, below one least
    /// significant bit in a 20 ms frame: no evidence of its own, and it teaches the echo path
    /// nothing. It no longer withholds the evidence after it (as it did from 2026-12-06): on the
    /// loopback rig, whose microphone has no noise, the microphone reads digital silence in every
    /// pause of the reply's speech, and a voice just after one waited two or three frames for the
    /// cancel (2 of 30 interruptions in a quiet bench run, 2026-12-07, the run's slowest, 167 and
    /// 168 ms). What that rule was for, five frames of zeros while the reply played and then two
    /// strong frames (a bench run at load 1.5–2, 2026-12-06, its reply's chunks acknowledged in
    /// bursts), is an output that starved: ``starvedAfter`` keeps that.
    public static let deadInput = 1e-6

    /// Seconds without an output write (``EchoReference/sinceFarEndWrite``) after which the
    /// reply's output starved (0.05 s, the front end's idle gap): the playback thread writes on
    /// through the speech's own silences, and stops only when the reply's queue runs dry. From
    /// then on, and for ``afterGapFrames`` audible frames after the writes resume, frames are no
    /// evidence. Not while paused (from the onset on): a pause flushes the output and writes
    /// nothing, and a voice there is what the pause is for.
    public static let starvedAfter = 0.05

    /// Native Talk's onset decision; its echo path is kept across replies.
    private var detector: BargeInDetector
    private var armed = false
    /// The onset was reported: from there on its frames are judged, as native Talk's pause and
    /// check would (they teach neither the echo path nor the residual level).
    private var reported = false
    /// Frames in a row with nothing audible in the reference.
    private var inaudibleFrames = 0
    /// Audible frames since the last gap (nil: none since output started).
    private var audibleSinceGap: Int?
    /// The output starved (``starvedAfter``) since the last audible frame.
    private var outputStarved = false

    /// The run so far (logs).
    public private(set) var evidence = Evidence()

    /// A detector with Talk's barge-in onset settings (`configuration`).
    public init(configuration: TalkModeConfiguration = TalkModeConfiguration()) {
        detector = BargeInDetector(configuration: configuration)
    }

    /// Whether output is being watched.
    public var isArmed: Bool { armed }

    /// The echo path learned so far.
    public var learnedEchoPath: EchoPathEstimate { detector.echoPath }

    /// Output started (or resumed after a pause): watch from here (the hold-off counts from the
    /// first frame with echo); the echo path learned so far stays.
    public mutating func outputStarted() {
        detector.replyStarted()
        watch()
    }

    /// Output plays on after a pause whose onset was no voice: watched again at once but for
    /// ``resumeHoldOff``, with the residual level and the echo path kept (the canceller did not
    /// lose them in a pause of a few tenths). A fresh start's half-second hold-off there hid the
    /// user: in a quiet bench run (2026-12-06, 30 probes) a rejected onset of the reply's echo came
    /// 0.4 s before an interruption, which went unheard until the hold-off ended and was cancelled
    /// 643 ms after its speech began, the reply audible for 600 ms of it.
    public mutating func outputResumed() {
        detector.replyResumed(holdOff: Self.resumeHoldOff)
        watch()
    }

    /// Watches from the next frame for an onset, with a fresh run's evidence.
    private mutating func watch() {
        armed = true
        reported = false
        evidence = Evidence()
    }

    /// Captured audio after a resume that starts no onset (0.2 s): the paused reply's sound comes
    /// back about 50 ms after the resume, and the rest is native Talk's settle (0.15 s); evidence
    /// waits for ``afterGapFrames`` audible frames besides.
    public static let resumeHoldOff = 0.2

    /// Output ended or was stopped: frames no longer count.
    public mutating func outputEnded() {
        armed = false
    }

    /// One 20 ms frame of the echo-cancelled capture: whether it is the onset of speech over the
    /// output, and whether it is strong evidence of a voice.
    public mutating func frame(
        isSpeech: Bool, seconds: Double, rms: Double, echo: Bool?, reference: EchoReference?
    ) -> Observation {
        guard armed else { return Observation() }
        let path = detector.echoPath
        var observation = Observation()
        let afterGap = noteGap(reference)
        if isSpeech {
            let excess = path.excess(reference)
            let bands = path.bandExcess(reference)
            // Trusted: the echo path has learned long enough, and the reply is not just back from a gap.
            let trusted = path.frames >= Self.strongAfterFrames && !afterGap
            let silentFarEnd = reference.map { $0.farEnd < EchoPathEstimate.audibleFarEnd } == true
            let residual = detector.residualEchoLevel
            let overResidual = residual > 0 && rms >= Self.strongLevelFactor * residual
            let band = bands?.highest ?? 0
            let levelEvidence = trusted && overResidual && (excess ?? 0) > EchoPathEstimate.margin
            let heard =
                (residual > 0 && rms >= Self.strongBandLevelFactor * residual)
                || (excess ?? 0) > EchoPathEstimate.margin
            // Sound while the reference holds nothing audible is no strong evidence: when a reply
            // resumes after a gap (its queue ran dry on a loaded machine) its first echo reaches
            // the microphone before the far-end window holds it, and two such frames at 23–32 ×
            // the residual cancelled a reply while the node read alone (bench, 2026-12-06, load
            // 12; two more in a run at load 19); no interruption of 70 logged ones needed it.
            observation.strong =
                trusted
                && ((excess ?? 0) >= Self.strongMargin || (band >= EchoPathEstimate.bandMargin && heard)
                    || (levelEvidence && band > Self.strongLevelBandMargin))
            observation.level = levelEvidence
            observation.overEcho =
                trusted && residual > 0 && rms >= Self.overEchoLevelFactor * residual
                && (excess ?? 0) >= Self.overEchoMargin
            if evidence.run == 0 { evidence = Evidence() }
            evidence.run += seconds
            evidence.peak = max(evidence.peak, rms)
            evidence.excess = max(evidence.excess, excess ?? 0)
            evidence.bandExcess = max(evidence.bandExcess, bands?.highest ?? 0)
            if excess != nil || bands != nil || silentFarEnd { evidence.measuredFrames += 1 }
            if observation.strong { evidence.strongFrames += 1 }
            evidence.frameExcess = excess ?? 0
            evidence.frameBand = band
        } else {
            evidence.run = 0
            evidence.frameExcess = path.excess(reference) ?? 0
            evidence.frameBand = path.bandExcess(reference)?.highest ?? 0
        }
        evidence.frameRms = rms
        evidence.frameStrong = observation.strong
        evidence.input = reference?.input ?? 0
        evidence.farEnd = reference?.farEnd ?? 0
        evidence.sinceWrite = reference?.sinceFarEndWrite
        evidence.residual = detector.residualEchoLevel
        evidence.echoGain = path.gain
        evidence.echoFrames = path.frames
        // A frame of digital silence teaches the echo path and the residual nothing (it would
        // read as no echo); it is still measured (no reference would count as over the echo:
        // passing none tripled the onsets of echo alone, 189 an hour reading alone, bench
        // 2026-12-06).
        let silent = (reference?.input ?? 1) < Self.deadInput
        let verdict = detector.frame(
            isSpeech: isSpeech, seconds: seconds, rms: rms, echo: echo, reference: reference,
            judging: reported || silent, watching: !reported)
        if !reported, verdict == .onset {
            reported = true
            observation.onset = true
            // Paused from here: a pause flushes the output and writes nothing.
            outputStarved = false
        }
        return observation
    }

    /// Counts gaps in the reply's reference and starvation of its output; whether this frame is
    /// among the first ``afterGapFrames`` audible ones after either (or within a starvation).
    private mutating func noteGap(_ reference: EchoReference?) -> Bool {
        let starved = !reported && (reference?.sinceFarEndWrite ?? 0) > Self.starvedAfter
        if starved { outputStarved = true }
        guard let reference, reference.farEnd >= EchoPathEstimate.audibleFarEnd else {
            inaudibleFrames += 1
            return false
        }
        // Digital silence is no evidence of its own (``deadInput``).
        guard reference.input >= Self.deadInput else { return false }
        if inaudibleFrames >= Self.gapFrames || outputStarved {
            audibleSinceGap = 0
        }
        inaudibleFrames = 0
        outputStarved = starved
        audibleSinceGap = audibleSinceGap.map { $0 + 1 }
        return (audibleSinceGap ?? Int.max) <= Self.afterGapFrames
    }
}
