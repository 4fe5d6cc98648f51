/// Delays between attempts to open a capture source: `initial`, doubling up to `maximum`, back to
/// `initial` after a success. Pure; the capture thread does the waiting.
struct RetryBackoff {
    let initial: Duration
    let maximum: Duration
    private var current: Duration

    init(initial: Duration, maximum: Duration) {
        self.initial = max(initial, .milliseconds(1))
        self.maximum = max(maximum, self.initial)
        current = self.initial
    }

    /// The delay before the next attempt; each call doubles the one after it, up to the maximum.
    mutating func next() -> Duration {
        defer { current = min(current * 2, maximum) }
        return current
    }

    /// Starts again from `initial` (after a successful open).
    mutating func reset() {
        current = initial
    }
}
