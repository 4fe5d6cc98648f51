/// Virtual time running `factor` times faster than the continuous clock: protocol constants
/// (30 s connect, 60 s re-probe) stay as specified while tests take milliseconds. At 25× a 10 s
/// challenge timeout is 400 ms of real time, headroom enough for a busy 2-core machine.
struct FastClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    let factor: Int
    let origin: ContinuousClock.Instant

    init(factor: Int = 25) {
        self.factor = factor
        origin = .now
    }

    var now: Instant { Instant(offset: (ContinuousClock.now - origin) * factor) }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let remaining = now.duration(to: deadline)
        if remaining > .zero {
            try await ContinuousClock().sleep(for: remaining / factor)
        } else {
            try Task.checkCancellation()
        }
    }
}
