import Foundation

/// The statistics benchmarks.md §3 asks for: Wilson intervals for miss rates, Poisson intervals
/// for false-accept rates, nearest-rank percentiles for latencies.
enum WakeBenchStatistics {
    /// z for a two-sided 95 % interval.
    static let z95 = 1.959963984540054

    /// Wilson score interval (95 %) for `successes` out of `trials`; nil for no trials.
    static func wilson(_ successes: Int, of trials: Int) -> ClosedRange<Double>? {
        guard trials > 0 else { return nil }
        let n = Double(trials)
        let p = Double(successes) / n
        let z2 = z95 * z95
        let denominator = 1 + z2 / n
        let center = (p + z2 / (2 * n)) / denominator
        let half = z95 * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot() / denominator
        return max(0, center - half)...min(1, center + half)
    }

    /// Exact (Garwood) 95 % interval for a Poisson count: the means at which seeing at least
    /// `count` events (lower limit) or at most `count` events (upper limit) has probability
    /// 2.5 %. 0 events give 0…3.69, the "rule of three" bound of benchmarks.md §3.
    static func poisson(_ count: Int) -> ClosedRange<Double> {
        let tail = 0.025
        // Both tail probabilities move monotonically with the mean: bisection.
        func bisect(from low: Double, to high: Double, tooLow: (Double) -> Bool) -> Double {
            var low = low
            var high = high
            for _ in 0..<200 {
                let middle = (low + high) / 2
                if tooLow(middle) { low = middle } else { high = middle }
            }
            return (low + high) / 2
        }
        let ceiling = Double(count) * 2 + 10
        let upper = bisect(from: Double(count), to: ceiling) { poissonCDF(count, mean: $0) > tail }
        guard count > 0 else { return 0...upper }
        let lower = bisect(from: 0, to: Double(count)) { 1 - poissonCDF(count - 1, mean: $0) < tail }
        return lower...upper
    }

    /// P(X ≤ k) for a Poisson mean, summed in log space.
    static func poissonCDF(_ k: Int, mean: Double) -> Double {
        guard mean > 0 else { return 1 }
        var logTerm = -mean
        var sum = exp(logTerm)
        if k > 0 {
            for i in 1...k {
                logTerm += log(mean) - log(Double(i))
                sum += exp(logTerm)
            }
        }
        return min(sum, 1)
    }

    /// n, p50, p95, max and mean of `values` (nearest-rank percentiles); nil when empty.
    static func summary(_ values: [Double]) -> LatencySummary? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func rank(_ fraction: Double) -> Double {
            sorted[max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1)]
        }
        return LatencySummary(
            n: sorted.count, p50: rank(0.5), p95: rank(0.95), max: sorted.last!,
            mean: sorted.reduce(0, +) / Double(sorted.count))
    }

    /// Times that are at least `refractory` seconds after the previous counted one.
    static func distinct(_ times: [Double], refractory: Double) -> [Double] {
        var kept: [Double] = []
        for time in times.sorted() where kept.last.map({ time - $0 >= refractory }) ?? true {
            kept.append(time)
        }
        return kept
    }
}

/// Latency percentiles in the unit they were given.
struct LatencySummary: Sendable, Hashable, Codable {
    var n: Int
    var p50: Double
    var p95: Double
    var max: Double
    var mean: Double
}
