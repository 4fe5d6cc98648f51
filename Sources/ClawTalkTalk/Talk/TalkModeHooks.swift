/// What Talk mode does to the rest of the node: it claims the microphone from voice wake
/// (talk.md §1: PTT > Talk mode > voice wake), pauses playback for the barge-in fast path
/// and starts a fresh speech session. Each closure returns quickly.
public struct TalkModeHooks: Sendable {
    /// Where Talk mode claims and releases the microphone (nil: nobody else listens).
    public var microphone: MicrophoneClaims?
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

    /// Hooks from closures; each defaults to doing nothing (and no microphone claims).
    public init(
        microphone: MicrophoneClaims? = nil, pauseReply: @escaping @Sendable (Bool) -> Void = { _ in },
        resetSpeechSession: @escaping @Sendable () async -> Void = {},
        replySilentSince: (@Sendable () -> UInt64?)? = nil
    ) {
        self.microphone = microphone
        self.pauseReply = pauseReply
        self.resetSpeechSession = resetSpeechSession
        self.replySilentSince = replySilentSince
    }

    /// No wake, no pausing.
    public static let none = TalkModeHooks()
}
