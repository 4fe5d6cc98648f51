import Foundation

/// A goal of benchmarks.md §3 as upper bounds on a metric's figures: `p50`, `p95` and/or the
/// headline `value`. Met when every bound holds; unknown (nil) when a bounded figure is missing.
struct BenchGoal: Sendable, Equatable {
    var p50: Double?
    var p95: Double?
    var value: Double?

    /// `p50 ≤ a, p95 ≤ b` / `≤ c`.
    var text: String {
        var parts: [String] = []
        if let p50 { parts.append("p50 ≤ \(Self.format(p50))") }
        if let p95 { parts.append("p95 ≤ \(Self.format(p95))") }
        if let value { parts.append("≤ \(Self.format(value))") }
        return parts.joined(separator: ", ")
    }

    /// Whether `metric` meets every bound; nil when a bounded figure is missing.
    func isMet(by metric: BenchMetric) -> Bool? {
        let checks: [(Double?, Double?)] = [(p50, metric.p50), (p95, metric.p95), (value, metric.value)]
        var met = true
        for (bound, figure) in checks {
            guard let bound else { continue }
            guard let figure else { return nil }
            met = met && figure <= bound
        }
        return met
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }

    // MARK: - benchmarks.md §3

    /// Wake latency: p50 ≤ 200 ms, p95 ≤ 350 ms.
    static let wakeLatency = BenchGoal(p50: 200, p95: 350)
    /// FRR ≤ 5 % (at 10 dB SNR).
    static let frr = BenchGoal(value: 0.05)
    /// FA/h ≤ 0.5.
    static let faPerHour = BenchGoal(value: 0.5)
    /// Self-trigger rate: 0 per hour.
    static let selfTrigger = BenchGoal(value: 0)
    /// Wake → chime ≤ 50 ms (every probe: p95).
    static let wakeToChime = BenchGoal(p95: 50)
    /// Barge-in ≤ 200 ms (p95).
    static let bargeIn = BenchGoal(p95: 200)
    /// TTS time to first audio ≤ 50 ms (p95).
    static let timeToFirstAudio = BenchGoal(p95: 50)
    /// Idle CPU ≤ 2 % of one core.
    static let idleCPU = BenchGoal(value: 0.02)
    /// The whole service (node and its servers) in silence: ≤ 1 % of one core (issue 13).
    static let serviceIdleCPU = BenchGoal(value: 1)
    /// The whole service during continuous non-trigger speech: ≤ 15 % of one core (issue 13).
    static let serviceSpeechCPU = BenchGoal(value: 15)
    /// The node's resident memory: ≤ 60 MiB (issue 13).
    static let serviceRSS = BenchGoal(value: 60)

    /// The node and the speech servers it runs together ≤ 250 MB of RSS, idle and after a turn.
    static let serviceTotalRSS = BenchGoal(value: 250)

    /// End of utterance ≤ silence window + 64 ms (p95).
    static func endOfUtterance(windowMs: Double) -> BenchGoal {
        BenchGoal(p95: windowMs + 64)
    }
}

extension BenchGoal {
    /// The p95 (else p50, else value) bound in a goal text, for plotting a goal line.
    static func parseBound(_ text: String?) -> Double? {
        guard let text else { return nil }
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let chosen = parts.first { $0.hasPrefix("p95") } ?? parts.first { $0.hasPrefix("p50") } ?? parts.first
        guard let chosen, let number = chosen.split(separator: " ").last else { return nil }
        return Double(number)
    }
}
