/// Realtime barge-in decisions (talk.md §9.2 "Barge-in"), pure: what the onset detector's
/// observations (``RealtimeOnsetDetector/Observation``) do to the reply.
///
/// - An onset whose speech run already holds enough evidence of a voice the echo cannot explain
///   cancels at once: output stops and `cancelOutput` goes out within the 150 ms the issue allows
///   from the speech onset. Enough is ``Settings/cancelEvidence`` of strong frames in the run
///   (or ``Settings/strongWithOverEcho`` of strong frames and frames over the echo, one strong),
///   ``Settings/levelInRun`` of level frames (``RealtimeOnsetDetector/Observation/level``) in the
///   run, or ``Settings/voiceInARow`` of frames in a row each level or over the echo
///   (``RealtimeOnsetDetector/Observation/overEcho``). No single frame is enough, whatever it
///   shows: in a 30 min bench run one frame of echo alone, 44 × the residual, ×1.62 over the echo,
///   a band ×8.1 (strong, level and over the echo at once, the sound of the reply resuming after a
///   gap), cancelled the reply (2026-12-06, load 8–16).
/// - Any other onset pauses output at once. The same evidence while paused (within
///   ``Settings/cancelWindow``) still cancels. Later, with the paused reply's echo gone (``Settings/settle``),
///   ``Settings/confirmSpeech`` of speech confirms it (cancel); silence for
///   ``Settings/quietToResume`` after the settle, or ``Settings/confirmWindow`` without a
///   confirmation, resumes the reply.
///
/// The figures were chosen on the traces (`realtime.onset.frames`) of 81 interruptions and 32
/// onsets of the node's own echo in three bench runs (2026-12-06): the onset comes 70–165 ms
/// after the speech starts, so a cancel within 150 ms must come by the onset or one frame after
/// it. With these rules 52 of the 60 interruptions of the two newest runs would have cancelled
/// within 150 ms (42 with the former ones: 2 strong frames, or 3 level frames in a row), and no
/// echo-only onset met any rule, none even with the figures loosened to ×0.75 (levels over the
/// residual) and −0.1 (input over the echo).
public struct RealtimeBargeIn: Sendable {
    /// The timings (seconds).
    public struct Settings: Sendable, Hashable {
        /// Strong evidence in the run that cancels at the onset (2 frames).
        public var cancelEvidence = 0.04
        /// Frames in a row, each level evidence or over the echo, that cancel (2 frames). A voice as
        /// loud as the echo at the microphone (×1.3–2.0 over it, its bands under ×2, so often not
        /// strong) stands 6–217 × over the residual frame after frame, level in some frames and
        /// over the echo in others. In the traces of 90 interruptions and 215 onsets of the reply's
        /// own echo (bench runs H–J, 2026-12-06, classified by what followed each onset) no echo
        /// onset had such a pair, none even with the figures loosened to ×0.75 (levels over the
        /// residual) and −0.1 (input over the echo) but the warm-up's, which the former rules met
        /// as well. Against the former rules (2 level frames in a row, or 3 over the echo) 11
        /// interruptions cancel sooner: 9 by a frame, one by two, and one at the second frame after
        /// its onset instead of by the confirmation 0.5 s later (analysis 2026-12-07).
        public var voiceInARow = 0.04
        /// Level evidence anywhere in the speech run that cancels (3 frames): one interruption had
        /// three level frames just before its onset frame (9.9 × the residual) and waited 0.6 s
        /// for the confirmation; no echo-only onset came nearer than 0.80 of the figures.
        public var levelInRun = 0.06
        /// Frames of the run strong or over the echo (``RealtimeOnsetDetector/Observation/overEcho``)
        /// that cancel when one of them is strong (2 frames: a strong frame and another). On the
        /// traces of five quiet bench runs (2026-12-06, 143 interruptions, 65 onsets of the reply's
        /// own echo) 40 interruptions cancelled two or more frames after their onset; with this
        /// rule 25 would have, 18 of them one or two frames sooner. No onset of echo alone had such
        /// a pair, none even with the level and echo figures loosened to ×0.75 and −0.1. A strong
        /// frame beside a level one is not enough: one onset of echo alone logged at load had a
        /// strong frame (a band ×4.4) then a level one (25.8 × the residual, ×1.28 over the echo).
        public var strongWithOverEcho = 0.04
        /// How long after the onset the evidence still cancels at once: the whole pause
        /// (``confirmWindow``). In quiet bench runs (2026-12-06, 30 probes each) an onset of the
        /// reply's own echo paused it just before the user spoke, twice in one run: their
        /// interruptions showed strong frames 5–10 frames after that onset, but a window of 3–4
        /// frames had passed, and they waited for the confirmation (cancelled 218 and 341 ms after
        /// their speech began); another, paused 58 ms after its speech began, had its second strong
        /// frame 4 frames after the onset (578 ms). While the reply is silenced the echo fades with
        /// its reference, and no onset of echo alone in those runs' traces met a rule later in its
        /// pause.
        public var cancelWindow = 0.8
        /// The paused reply's echo dies away at the microphone (native Talk's settle, 0.15 s),
        /// counted from when output actually went silent where the speaker tells: with 0.06 s
        /// counted from the onset, on a machine at load 14, four pauses of the node's own reply
        /// heard 0.2 s of "speech" after the settle and cancelled it, and at 0.15 s eight in
        /// 10 min (bench, 2026-12-06).
        public var settle = 0.15
        /// Speech after the settle that confirms the barge-in.
        public var confirmSpeech = 0.2
        /// Silence after the settle that ends the pause (the onset was no voice).
        public var quietToResume = 0.2
        /// The pause's limit.
        public var confirmWindow = 0.8

        /// The defaults.
        public init() {}
    }

    /// What to do to the reply.
    public enum Decision: String, Sendable, Hashable {
        /// Silence output at once (queued audio waits).
        case pause
        /// Stop output and send `cancelOutput`.
        case cancel
        /// Play on from where it paused (the onset was no voice).
        case resume
    }

    /// Why a cancel or resume came (logs, bench).
    public enum Reason: String, Sendable, Hashable {
        /// Strong evidence (two strong frames, or one beside a frame over the echo) by the onset.
        case evidenceAtOnset
        /// Strong evidence just after it.
        case evidenceAfterOnset
        /// Level evidence in the run by the onset.
        case levelAtOnset
        /// Level evidence just after it.
        case levelAfterOnset
        /// Frames in a row, each level or over the echo, by the onset.
        case voiceInARowAtOnset
        /// Such frames just after it.
        case voiceInARowAfterOnset
        /// Speech over the silenced reply.
        case speechWhilePaused
        /// Silence after the settle.
        case quiet
        /// The window passed.
        case window
    }

    private enum Phase: Sendable, Hashable {
        case idle
        case watching
        case paused(elapsed: Double, voiced: Double, quiet: Double)
    }

    /// The settings.
    public let settings: Settings
    private var phase = Phase.idle
    /// The evidence (seconds) of the current speech run.
    private var runs = Runs()

    /// The evidence (seconds) of the current speech run.
    private struct Runs: Sendable, Hashable {
        /// Strong frames in the run.
        var strong = 0.0
        /// Frames in a row, each level or over the echo, up to the newest frame.
        var voiceInARow = 0.0
        /// Level frames in the run.
        var level = 0.0
        /// Frames strong or over the echo in the run.
        var strongOrOverEcho = 0.0

        /// Adds a frame of `seconds` (a frame without speech ends the run).
        mutating func add(isSpeech: Bool, seconds: Double, _ observation: RealtimeOnsetDetector.Observation) {
            guard isSpeech else {
                self = Runs()
                return
            }
            strong += observation.strong ? seconds : 0
            voiceInARow = observation.level || observation.overEcho ? voiceInARow + seconds : 0
            level += observation.level ? seconds : 0
            strongOrOverEcho += observation.strong || observation.overEcho ? seconds : 0
        }
    }

    /// The last decision's reason.
    public private(set) var reason: Reason?

    /// A decision machine, idle until ``outputStarted()``.
    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Whether output is paused, waiting for a verdict.
    public var isPaused: Bool {
        if case .paused = phase { return true }
        return false
    }

    /// Output started or resumed: watch for onsets.
    public mutating func outputStarted() {
        phase = .watching
        runs = Runs()
    }

    /// Output ended or was stopped: nothing to decide.
    public mutating func outputEnded() {
        phase = .idle
        runs = Runs()
    }

    /// One frame of `seconds` with the speech decision and the onset detector's observation;
    /// `silence` is how long the paused output had been silent when the frame was captured (0:
    /// not yet; nil: not known, the settle then counts in captured audio from the onset).
    public mutating func frame(
        isSpeech: Bool, seconds: Double, observation: RealtimeOnsetDetector.Observation, silence: Double? = nil
    ) -> Decision? {
        runs.add(isSpeech: isSpeech, seconds: seconds, observation)
        let evidence = self.evidence
        switch phase {
        case .idle:
            return nil
        case .watching:
            guard observation.onset else { return nil }
            if let evidence { return cancel(evidence.atOnset) }
            phase = .paused(elapsed: 0, voiced: 0, quiet: 0)
            reason = nil
            return .pause
        case .paused(var elapsed, var voiced, var quiet):
            elapsed += seconds
            if elapsed <= settings.cancelWindow + 1e-9 {
                if let evidence { return cancel(evidence.afterOnset) }
            }
            if (silence ?? elapsed) > settings.settle + 1e-9 {
                if isSpeech {
                    voiced += seconds
                    quiet = 0
                } else {
                    quiet += seconds
                }
            }
            if voiced >= settings.confirmSpeech - 1e-9 { return cancel(.speechWhilePaused) }
            if quiet >= settings.quietToResume - 1e-9 { return resume(.quiet) }
            if elapsed >= settings.confirmWindow - 1e-9 { return resume(.window) }
            phase = .paused(elapsed: elapsed, voiced: voiced, quiet: quiet)
            return nil
        }
    }

    /// The kinds of evidence that cancel at once.
    private enum Evidence {
        case strong, voiceInARow, level

        var atOnset: Reason {
            switch self {
            case .strong: .evidenceAtOnset
            case .voiceInARow: .voiceInARowAtOnset
            case .level: .levelAtOnset
            }
        }

        var afterOnset: Reason {
            switch self {
            case .strong: .evidenceAfterOnset
            case .voiceInARow: .voiceInARowAfterOnset
            case .level: .levelAfterOnset
            }
        }
    }

    /// The evidence of the run so far that cancels at once, if any.
    private var evidence: Evidence? {
        let epsilon = 1e-9
        if runs.strong >= settings.cancelEvidence - epsilon { return .strong }
        if runs.strong > 0, runs.strongOrOverEcho >= settings.strongWithOverEcho - epsilon { return .strong }
        if runs.voiceInARow >= settings.voiceInARow - epsilon { return .voiceInARow }
        if runs.level >= settings.levelInRun - epsilon { return .level }
        return nil
    }

    private mutating func cancel(_ why: Reason) -> Decision {
        phase = .idle
        reason = why
        return .cancel
    }

    private mutating func resume(_ why: Reason) -> Decision {
        phase = .watching
        reason = why
        return .resume
    }
}
