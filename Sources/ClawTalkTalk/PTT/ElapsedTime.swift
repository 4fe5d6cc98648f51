/// Time elapsed since creation on an injected clock, as a `Duration` (so deadlines work with any
/// `Clock<Duration>`, including the tests' fast and manual clocks).
struct ElapsedTime: Sendable {
    private let read: @Sendable () -> Duration

    /// Starts counting on `clock`.
    init(_ clock: any Clock<Duration>) {
        read = Self.reader(clock)
    }

    private static func reader<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// Time since creation.
    func callAsFunction() -> Duration {
        read()
    }
}
