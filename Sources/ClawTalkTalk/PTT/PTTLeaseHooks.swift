/// How push-to-talk takes the microphone from the lower owners (talk-contract §1: PTT > Talk
/// mode > voice wake) and gives it back. Voice wake and Talk mode provide these; each closure
/// returns quickly (it flips a flag or pauses a loop, it does not wait for audio).
public struct PTTLeaseHooks: Sendable {
    /// Suspends voice wake (a wake command capture in progress is discarded).
    public var suspendWake: @Sendable () async -> Void
    /// Resumes voice wake.
    public var resumeWake: @Sendable () async -> Void
    /// Pauses Talk mode; returns whether it was listening (only then is it resumed).
    public var pauseTalk: @Sendable () async -> Bool
    /// Resumes Talk mode.
    public var resumeTalk: @Sendable () async -> Void

    /// Hooks from closures.
    public init(
        suspendWake: @escaping @Sendable () async -> Void, resumeWake: @escaping @Sendable () async -> Void,
        pauseTalk: @escaping @Sendable () async -> Bool, resumeTalk: @escaping @Sendable () async -> Void
    ) {
        self.suspendWake = suspendWake
        self.resumeWake = resumeWake
        self.pauseTalk = pauseTalk
        self.resumeTalk = resumeTalk
    }

    /// Voice wake's hooks from `wake` and Talk mode's from `talk`.
    public init(wake: PTTLeaseHooks, talk: PTTLeaseHooks) {
        self.init(
            suspendWake: wake.suspendWake, resumeWake: wake.resumeWake, pauseTalk: talk.pauseTalk,
            resumeTalk: talk.resumeTalk)
    }

    /// No wake or Talk mode to suspend.
    public static let none = PTTLeaseHooks(
        suspendWake: {}, resumeWake: {}, pauseTalk: { false }, resumeTalk: {})
}
