import Foundation

/// Two bench reports side by side (benchmarks.md §7, `compare`): per metric and condition the
/// headline figure (p95 where there is a distribution, else the value) of the base and the new
/// run, and whether the new one regressed beyond a tolerance. Every metric here is better when
/// lower (latencies, miss and false-accept rates, CPU, memory). A goal that is not met is not a
/// regression; only a change between the two runs is.
struct BenchComparison: Sendable, Equatable {
    /// What happened to one metric.
    enum Verdict: String, Sendable, Equatable {
        /// Within the tolerance.
        case same
        /// Lower (better) beyond the tolerance.
        case better
        /// Higher (worse) beyond the tolerance.
        case regression
        /// Only in the new report.
        case added
        /// Only in the base report.
        case removed
        /// Measured in one report but not the other (a figure is null).
        case unmeasured
    }

    /// One metric and condition.
    struct Row: Sendable, Equatable {
        var name: String
        var condition: String
        var unit: String
        /// `p95` or `value`.
        var figure: String
        var base: Double?
        var new: Double?
        var verdict: Verdict

        /// `new / base − 1`, when both are known and the base is not zero.
        var change: Double? {
            guard let base, let new, base != 0 else { return nil }
            return new / base - 1
        }
    }

    /// The rows, in the new report's order, then metrics only the base has.
    var rows: [Row]
    /// The relative tolerance (0.1 = 10 %).
    var tolerance: Double

    /// Whether any metric regressed.
    var hasRegression: Bool { rows.contains { $0.verdict == .regression } }

    /// Smallest change that counts for `unit` (timer and marker resolution for milliseconds).
    static func floor(unit: String) -> Double {
        unit == "ms" ? 2 : 0
    }

    /// Compares `new` with `base`.
    init(base: BenchReport, new: BenchReport, tolerance: Double) {
        self.tolerance = tolerance
        func key(_ metric: BenchMetric) -> String { metric.name + "\u{1}" + metric.condition }
        let baseByKey = Dictionary(base.metrics.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        let newKeys = Set(new.metrics.map(key))
        var rows: [Row] = []
        for metric in new.metrics {
            rows.append(Self.row(base: baseByKey[key(metric)], new: metric, tolerance: tolerance))
        }
        for metric in base.metrics where !newKeys.contains(key(metric)) {
            let (figure, value) = Self.headline(metric)
            rows.append(
                Row(
                    name: metric.name, condition: metric.condition, unit: metric.unit, figure: figure, base: value,
                    new: nil, verdict: .removed))
        }
        self.rows = rows
    }

    /// The figure a metric is judged by: p95 of a distribution, else its value.
    static func headline(_ metric: BenchMetric) -> (String, Double?) {
        if metric.p95 != nil || metric.p50 != nil { return ("p95", metric.p95) }
        return ("value", metric.value)
    }

    private static func row(base: BenchMetric?, new: BenchMetric, tolerance: Double) -> Row {
        let (figure, newValue) = headline(new)
        var row = Row(
            name: new.name, condition: new.condition, unit: new.unit, figure: figure, base: nil, new: newValue,
            verdict: .added)
        guard let base else { return row }
        row.base = headline(base).1
        guard let old = row.base, let now = newValue else {
            row.verdict = row.base == nil && newValue == nil ? .same : .unmeasured
            return row
        }
        let margin = Swift.max(abs(old) * tolerance, floor(unit: new.unit))
        if now > old + margin {
            row.verdict = .regression
        } else if now < old - margin {
            row.verdict = .better
        } else {
            row.verdict = .same
        }
        return row
    }

    /// A Markdown table, regressions marked, then a one-line summary.
    var markdown: String {
        var lines = [
            "| Metric | Condition | Figure | Base | New | Change | Verdict |",
            "|---|---|---|---|---|---|---|",
        ]
        for row in rows {
            let change = row.change.map { String(format: "%+.1f %%", $0 * 100) } ?? "–"
            let verdict = row.verdict == .regression ? "**regression**" : row.verdict.rawValue
            lines.append(
                "| \(row.name) | \(row.condition) | \(row.figure) | \(Self.format(row.base, row.unit)) | "
                    + "\(Self.format(row.new, row.unit)) | \(change) | \(verdict) |")
        }
        let regressions = rows.filter { $0.verdict == .regression }.count
        let percent = String(format: "%.0f", tolerance * 100)
        lines.append("")
        lines.append(
            regressions == 0
                ? "No regression beyond \(percent) % (\(rows.count) metrics compared)."
                : "\(regressions) of \(rows.count) metrics regressed beyond \(percent) %.")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func format(_ value: Double?, _ unit: String) -> String {
        guard let value else { return "–" }
        let digits = abs(value) >= 100 ? 0 : abs(value) >= 1 ? 1 : 4
        return String(format: "%.\(digits)f", value) + (unit.isEmpty ? "" : " \(unit)")
    }
}
