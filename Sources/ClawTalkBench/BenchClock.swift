import ClawTalkDevices
import ClawTalkSupport

/// Milliseconds between instants of the benchmark's one clock (`ContinuousClock`), and the
/// conversion of capture timestamps (``MonotonicTime``) onto it.
enum BenchClock {
    /// `duration` in milliseconds.
    static func ms(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) * 1e-15
    }

    /// The `ContinuousClock` instant of a ``MonotonicTime`` stamp (the two clocks differ by a
    /// constant offset while the machine does not suspend; measured at each call).
    static func instant(monotonicNanoseconds stamp: UInt64) -> ContinuousClock.Instant {
        let now = ContinuousClock.now
        let monotonic = MonotonicTime.nanoseconds()
        return now - .nanoseconds(Int64(monotonic) - Int64(stamp))
    }

    /// Seconds of `samples` at 16 kHz as a duration.
    static func duration(samples: Int, rate: Int = 16_000) -> Duration {
        .nanoseconds(Int64(samples) * 1_000_000_000 / Int64(rate))
    }
}
