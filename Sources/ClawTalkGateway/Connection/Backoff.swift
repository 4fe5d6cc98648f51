import ClawTalkProtocol

/// Reconnect delays of one connection (protocol.md §15, §16). Pure: the random part
/// comes from an injected ``Jitter`` value, so every delay is reproducible in tests.
///
/// - Normal: `initial`, doubling, capped at `maximum`, plus 0–25 % jitter; reset on `hello-ok`.
/// - Gateway starting (1013): the `retryAfterMs` hint, clamped 100–2000 (default 500).
/// - Gateway restart (1012 / `shutdown`): `max(restartExpectedMs ?? 0, 500 ms + jitter)`.
/// - `AUTH_RATE_LIMITED`: 30, 60, 120, then 300 s repeating, or `retryAfterMs` when larger.
/// - One-shot retries (v3→v2 signature, device-token retry, token cleared): 250 ms.
public struct Backoff: Sendable, Hashable {
    /// The delay table.
    public struct Configuration: Sendable, Hashable {
        /// First normal delay (protocol.md §15: 1 s).
        public var initial: Duration
        /// Cap of the normal delay before jitter.
        public var maximum: Duration
        /// Largest jitter as a fraction of the delay (0.25 = up to +25 %).
        public var jitterFraction: Double
        /// Delay of the one-shot retries.
        public var singleRetry: Duration
        /// Base of the restart delay (`500 ms + jitter`).
        public var restartMinimum: Duration
        /// `AUTH_RATE_LIMITED` steps; the last one repeats.
        public var rateLimitSteps: [Duration]

        /// The protocol.md §15 table; every value can be overridden.
        public init(
            initial: Duration = .seconds(1), maximum: Duration = .seconds(30), jitterFraction: Double = 0.25,
            singleRetry: Duration = .milliseconds(250), restartMinimum: Duration = .milliseconds(500),
            rateLimitSteps: [Duration] = [.seconds(30), .seconds(60), .seconds(120), .seconds(300)]
        ) {
            self.initial = initial
            self.maximum = maximum
            self.jitterFraction = jitterFraction
            self.singleRetry = singleRetry
            self.restartMinimum = restartMinimum
            self.rateLimitSteps = rateLimitSteps.isEmpty ? [.seconds(300)] : rateLimitSteps
        }
    }

    /// The table in use.
    public let configuration: Configuration
    /// Normal failures since the last reset.
    public private(set) var failures = 0
    /// Rate-limit rejections since the last reset.
    public private(set) var rateLimitFailures = 0
    private var jitter: Jitter

    /// A fresh backoff.
    public init(configuration: Configuration = Configuration(), jitter: Jitter = .random()) {
        self.configuration = configuration
        self.jitter = jitter
    }

    /// Forgets all failures (after `hello-ok` or a user action).
    public mutating func reset() {
        failures = 0
        rateLimitFailures = 0
    }

    /// The next normal delay: `min(initial × 2ⁿ, maximum)` plus jitter.
    public mutating func next() -> Duration {
        let initialMs = Self.milliseconds(configuration.initial)
        let maximumMs = Self.milliseconds(configuration.maximum)
        var baseMs = initialMs
        var step = 0
        while step < failures, baseMs < maximumMs {
            baseMs *= 2
            step += 1
        }
        failures += 1
        return .milliseconds(withJitter(min(baseMs, maximumMs)))
    }

    /// Delay after "gateway starting" (1013): `retryAfterMs` clamped to 100–2000, default 500.
    public func startup(retryAfterMs: Int?) -> Duration {
        let hint = retryAfterMs ?? ConnectRejection.defaultStartupRetryMs
        return .milliseconds(min(max(hint, 100), 2000))
    }

    /// First delay after a gateway restart: `max(restartExpectedMs ?? 0, 500 ms + jitter)`.
    public mutating func restart(restartExpectedMs: Int?) -> Duration {
        let floor = withJitter(Self.milliseconds(configuration.restartMinimum))
        return .milliseconds(max(restartExpectedMs ?? 0, floor))
    }

    /// The next `AUTH_RATE_LIMITED` delay: the step for this failure, or `retryAfterMs` if larger.
    public mutating func rateLimited(retryAfterMs: Int?) -> Duration {
        let steps = configuration.rateLimitSteps
        let step = steps[min(rateLimitFailures, steps.count - 1)]
        rateLimitFailures += 1
        return .milliseconds(max(Self.milliseconds(step), retryAfterMs ?? 0))
    }

    /// Delay of a one-shot retry (v3→v2, device-token retry, token cleared): ≥ 250 ms.
    public var singleRetry: Duration { configuration.singleRetry }

    private mutating func withJitter(_ milliseconds: Int) -> Int {
        let extra = Double(milliseconds) * configuration.jitterFraction * jitter.nextFraction()
        return milliseconds + Int(extra.rounded(.down))
    }

    /// Whole milliseconds of a duration (sub-millisecond parts dropped).
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
