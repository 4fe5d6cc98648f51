/// Realtime barge-in decisions (talk.md §9.2 "Barge-in"), pure: what the onset detector's
/// observations (``RealtimeOnsetDetector/Observation``) do to the reply.
///
/// - An onset whose speech run already holds ``Settings/cancelEvidence`` of strong evidence (a
///   voice the echo cannot explain), or ``Settings/levelEvidence`` of level evidence in a row
///   (``RealtimeOnsetDetector/Observation/level``), cancels at once: output stops and
///   `cancelOutput` goes out within the 150 ms the issue allows from the speech onset.
/// - Any other onset pauses output at once. Either evidence within ``Settings/cancelWindow``
///   after it still cancels. Later, with the paused reply's echo gone
///   (``Settings/settle``), ``Settings/confirmSpeech`` of speech confirms it (cancel); silence for
///   ``Settings/quietToResume`` after the settle, or ``Settings/confirmWindow`` without a
///   confirmation, resumes the reply.
public struct RealtimeBargeIn: Sendable {
    /// The timings (seconds).
    public struct Settings: Sendable, Hashable {
        /// Strong evidence in the run that cancels at the onset (2 frames).
        public var cancelEvidence = 0.04
        /// Level evidence in a row that cancels (3 frames): a voice as loud as the echo at the
        /// microphone (×1.3–1.8 over it, its bands under ×2, so never strong) stands 12–166 × over
        /// the residual frame after frame; of the onsets of the node's own echo, none had three
        /// such frames in a row and one (load 11) two (bench, 2026-12-06: 7 of 20 interruptions
        /// waited ~0.6 s for the confirmation without it, each with 3 such frames by one frame
        /// after its onset; with it 27 of 30 cancelled at once).
        public var levelEvidence = 0.06
        /// How long after the onset either evidence still cancels at once (3 frames).
        public var cancelWindow = 0.06
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
        /// Strong evidence by the onset.
        case evidenceAtOnset
        /// Strong evidence just after it.
        case evidenceAfterOnset
        /// Level evidence in a row by the onset.
        case levelAtOnset
        /// Level evidence in a row just after it.
        case levelAfterOnset
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
    /// Strong evidence (seconds) in the current speech run.
    private var strongRun = 0.0
    /// Level evidence (seconds) in a row, up to the newest frame.
    private var levelRun = 0.0

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
        strongRun = 0
        levelRun = 0
    }

    /// Output ended or was stopped: nothing to decide.
    public mutating func outputEnded() {
        phase = .idle
        strongRun = 0
        levelRun = 0
    }

    /// One frame of `seconds` with the speech decision and the onset detector's observation;
    /// `silence` is how long the paused output had been silent when the frame was captured (0:
    /// not yet; nil: not known, the settle then counts in captured audio from the onset).
    public mutating func frame(
        isSpeech: Bool, seconds: Double, observation: RealtimeOnsetDetector.Observation, silence: Double? = nil
    ) -> Decision? {
        strongRun = isSpeech ? strongRun + (observation.strong ? seconds : 0) : 0
        levelRun = isSpeech && observation.level ? levelRun + seconds : 0
        let enough = strongRun >= settings.cancelEvidence - 1e-9
        let loud = levelRun >= settings.levelEvidence - 1e-9
        switch phase {
        case .idle:
            return nil
        case .watching:
            guard observation.onset else { return nil }
            if enough { return cancel(.evidenceAtOnset) }
            if loud { return cancel(.levelAtOnset) }
            phase = .paused(elapsed: 0, voiced: 0, quiet: 0)
            reason = nil
            return .pause
        case .paused(var elapsed, var voiced, var quiet):
            elapsed += seconds
            if elapsed <= settings.cancelWindow + 1e-9 {
                if enough { return cancel(.evidenceAfterOnset) }
                if loud { return cancel(.levelAfterOnset) }
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
