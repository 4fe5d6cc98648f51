/// What the two-stage wake pipeline made of one stage-1 hit.
public struct WakeVerdict: Sendable, Hashable {
    /// Why a hit was not accepted.
    public enum Rejection: Sendable, Hashable {
        /// The energy gate heard no speech around the hit (the verifier was not run).
        case noSpeech
        /// The transcript only repeated the verifier prompt (Whisper does this on noise).
        case promptEcho
        /// The transcript does not contain the trigger.
        case triggerNotHeard
        /// The trigger was followed by more words without the required pause.
        case pauseTooShort
        /// The hit came while the node's own playback was in the audio and its score did not
        /// reach ``TwoStageWakeDetector/Options/echoScoreFactor`` times its threshold.
        case weakOverEcho
        /// The verifier failed; its error, in one line.
        case verifierFailed(String)
    }

    /// The stage-1 hit.
    public var hit: WakeHit
    /// Nil when accepted, else why not.
    public var rejection: Rejection?
    /// The gate's decision on the transcript (nil in stage-1-only mode or without a transcript).
    public var decision: TriggerGateDecision?
    /// The verifier's transcript, if it ran.
    public var transcript: String?
    /// Seconds of stream time at which the decision could be made (the hit's time in
    /// stage-1-only mode, the end of the verified audio otherwise).
    public var decidedAtSeconds: Double

    /// True when the pipeline would act on the hit.
    public var isAccepted: Bool { rejection == nil }

    /// The command heard after the trigger ("" when none, or when not verified).
    public var command: String {
        if case .accepted(let occurrence, _) = decision { return occurrence.command }
        return ""
    }
}
