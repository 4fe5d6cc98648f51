/// What Talk mode does to the rest of the node: it takes the microphone from voice wake
/// (talk-contract §1: PTT > Talk mode > voice wake), pauses playback for the barge-in fast path
/// and starts a fresh speech session. Each closure returns quickly.
public struct TalkModeHooks: Sendable {
    /// Suspends voice wake (Talk mode owns the microphone).
    public var suspendWake: @Sendable () async -> Void
    /// Resumes voice wake (Talk mode ended).
    public var resumeWake: @Sendable () async -> Void
    /// Pauses playback where it is heard (true) or resumes it from there (false); synchronous,
    /// takes effect at the next chunk (``PlaybackController/setPaused(_:)`` in the service).
    public var pauseReply: @Sendable (Bool) -> Void
    /// A new Talk session began: forget the session's directive defaults.
    public var resetSpeechSession: @Sendable () async -> Void
    /// When the paused reply actually went silent, on the capture frames' clock
    /// (CLOCK_MONOTONIC nanoseconds, ``UtteranceFrame/timestampNanoseconds``); the closure
    /// returns nil while the pause has not taken effect. Without it, a pause's settle is counted
    /// in captured audio from the onset (``PlaybackController/silentSinceNanoseconds`` in the
    /// service). Synchronous and cheap: called once per frame while paused.
    public var replySilentSince: (@Sendable () -> UInt64?)?

    /// Hooks from closures; each defaults to doing nothing.
    public init(
        suspendWake: @escaping @Sendable () async -> Void = {}, resumeWake: @escaping @Sendable () async -> Void = {},
        pauseReply: @escaping @Sendable (Bool) -> Void = { _ in },
        resetSpeechSession: @escaping @Sendable () async -> Void = {},
        replySilentSince: (@Sendable () -> UInt64?)? = nil
    ) {
        self.suspendWake = suspendWake
        self.resumeWake = resumeWake
        self.pauseReply = pauseReply
        self.resetSpeechSession = resetSpeechSession
        self.replySilentSince = replySilentSince
    }

    /// No wake, no pausing.
    public static let none = TalkModeHooks()
}
