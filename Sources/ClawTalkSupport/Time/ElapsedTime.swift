/// Time elapsed since creation on an injected clock, as a `Duration`: deadlines (the tick
/// watchdog, push-to-talk's limits) then run on any `Clock<Duration>`, including the tests'
/// manual clock.
public struct ElapsedTime: Sendable {
    private let read: @Sendable () -> Duration

    /// Starts counting on `clock`.
    public init(_ clock: any Clock<Duration>) {
        read = Self.reader(clock)
    }

    private static func reader<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// Time since creation.
    public func callAsFunction() -> Duration {
        read()
    }
}
