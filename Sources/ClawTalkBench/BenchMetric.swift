/// One row of a benchmark report (benchmarks.md §3): a latency distribution (n, p50, p95, max,
/// mean) or a rate/value (value, count, exposure, 95 % interval), with its goal and whether the
/// goal was met. A metric that could not be measured keeps `value` nil and says why in `reason`.
struct BenchMetric: Codable, Sendable, Equatable {
    /// benchmarks.md's metric name, e.g. `wake.latency`.
    var name: String
    /// What was measured under which condition (engine, trigger, SNR, block size, path, …).
    var condition: String
    /// `ms`, `ratio`, `per_hour`, `rtf`, `MiB`.
    var unit: String
    /// Samples (latencies) or trials (clips) behind the figure.
    var n: Int?
    var p50: Double?
    var p95: Double?
    var max: Double?
    var mean: Double?
    /// The headline value: p50 for latencies, the rate for rates.
    var value: Double?
    /// Events counted for a rate (misses, false accepts, wakes).
    var count: Int?
    /// Exposure of a rate: hours of audio or number of clips, see `exposureUnit`.
    var exposure: Double?
    var exposureUnit: String?
    /// 95 % interval of `value` (Wilson for ratios, exact Poisson for rates).
    var ci95: [Double]?
    /// The goal as text, e.g. `p50 ≤ 200, p95 ≤ 350`; nil for "report".
    var goal: String?
    /// Whether the goal was met; nil without a goal or without a value.
    var met: Bool?
    /// Why the value is missing, or how it was measured when that needs saying.
    var reason: String?
    /// The latencies themselves (for plots and recomputation).
    var samples: [Double]?

    /// A latency metric over `samples` (milliseconds) with `goal`.
    static func latency(
        _ name: String, condition: String, samples: [Double], goal: BenchGoal? = nil, reason: String? = nil
    ) -> BenchMetric {
        guard let summary = WakeBenchStatistics.summary(samples) else {
            return .unmeasured(name, condition: condition, unit: "ms", goal: goal, reason: reason ?? "no samples")
        }
        var metric = BenchMetric(
            name: name, condition: condition, unit: "ms", n: summary.n, p50: rounded(summary.p50),
            p95: rounded(summary.p95), max: rounded(summary.max), mean: rounded(summary.mean),
            value: rounded(summary.p50), goal: goal?.text, reason: reason, samples: samples.map(rounded))
        metric.met = goal?.isMet(by: metric)
        return metric
    }

    /// A plain value (RTF, MiB, …) with an optional goal.
    static func value(
        _ name: String, condition: String, unit: String, value: Double, n: Int? = nil, goal: BenchGoal? = nil,
        reason: String? = nil
    ) -> BenchMetric {
        var metric = BenchMetric(
            name: name, condition: condition, unit: unit, n: n, value: rounded(value), goal: goal?.text,
            reason: reason)
        metric.met = goal?.isMet(by: metric)
        return metric
    }

    /// A metric that could not be measured: present, value nil, with the reason.
    static func unmeasured(
        _ name: String, condition: String, unit: String, goal: BenchGoal? = nil, reason: String
    ) -> BenchMetric {
        BenchMetric(name: name, condition: condition, unit: unit, goal: goal?.text, reason: reason)
    }

    /// Four significant decimals, enough for milliseconds and rates.
    static func rounded(_ value: Double) -> Double {
        guard value.isFinite else { return value }
        return (value * 10_000).rounded() / 10_000
    }

    enum CodingKeys: String, CodingKey {
        case name, condition, unit, n, p50, p95, max, mean, value, count, exposure, exposureUnit, ci95, goal, met,
            reason, samples
    }

    /// Writes the figures of the report schema (`n`, `p50`, `p95`, `max`, `value`, `goal`, `met`)
    /// as `null` when missing, so an unmeasured metric still shows every key; the rest only
    /// when present.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(condition, forKey: .condition)
        try container.encode(unit, forKey: .unit)
        try container.encode(n, forKey: .n)
        try container.encode(p50, forKey: .p50)
        try container.encode(p95, forKey: .p95)
        try container.encode(max, forKey: .max)
        try container.encode(value, forKey: .value)
        try container.encode(goal, forKey: .goal)
        try container.encode(met, forKey: .met)
        try container.encodeIfPresent(mean, forKey: .mean)
        try container.encodeIfPresent(count, forKey: .count)
        try container.encodeIfPresent(exposure, forKey: .exposure)
        try container.encodeIfPresent(exposureUnit, forKey: .exposureUnit)
        try container.encodeIfPresent(ci95, forKey: .ci95)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(samples, forKey: .samples)
    }
}
