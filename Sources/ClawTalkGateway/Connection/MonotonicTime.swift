/// Monotonic time elapsed since creation, read from an injected clock (so a test clock
/// drives deadlines such as the tick watchdog).
struct MonotonicTime: Sendable {
    private let read: @Sendable () -> Duration

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
