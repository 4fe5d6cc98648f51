import Foundation

extension BenchReport {
    /// `report.md`: a header (machine, commit, corpus, configuration), then one table per
    /// metric with the goal beside each measured value (benchmarks.md §7.4).
    var markdown: String {
        var lines = [
            "# clawtalk benchmark (\(suite))", "",
            "- Started: \(startedAt)",
            "- Machine: \(machine.summary)",
            "- Commit: \(commit ?? "unknown")",
            "- Corpus manifest SHA-256: \(corpus ?? "none")",
        ]
        for (key, value) in config.sorted(by: { $0.key < $1.key }) { lines.append("- \(key): \(value)") }
        lines.append("")
        lines.append(
            "Goals are project goals, not claims: each row says whether it was met on this machine and corpus.")
        var order: [String] = []
        for metric in metrics where !order.contains(metric.name) { order.append(metric.name) }
        for name in order {
            let rows = metrics.filter { $0.name == name }
            lines += ["", "## \(name)", ""]
            lines.append("| Condition | n | p50 | p95 | max | Value | 95 % CI | Goal | Met | Note |")
            lines.append("|---|---|---|---|---|---|---|---|---|---|")
            for metric in rows {
                let cells = [
                    metric.condition, metric.n.map(String.init) ?? "–", Self.cell(metric.p50),
                    Self.cell(metric.p95), Self.cell(metric.max), Self.valueCell(metric),
                    metric.ci95.map { "\(Self.cell($0[0]))–\(Self.cell($0[1]))" } ?? "–", metric.goal ?? "report",
                    metric.met.map { $0 ? "yes" : "**no**" } ?? "–", metric.reason ?? "",
                ]
                lines.append(
                    "| " + cells.map { $0.replacingOccurrences(of: "|", with: "/") }.joined(separator: " | ") + " |")
            }
        }
        if !roc.isEmpty {
            lines += [
                "", "## wake.roc", "", "| Engine | Trigger | Condition | Threshold | FRR | FA/h |",
                "|---|---|---|---|---|---|",
            ]
            for point in roc {
                lines.append(
                    "| \(point.engine) | \(point.trigger) | \(point.condition) | \(point.threshold) | "
                        + "\(Self.cell(point.frr)) | \(Self.cell(point.faPerHour)) |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func valueCell(_ metric: BenchMetric) -> String {
        guard let value = metric.value else { return "not measured" }
        var text = "\(cell(value)) \(metric.unit)"
        if let count = metric.count, let exposure = metric.exposure, let unit = metric.exposureUnit {
            text += " (\(count) in \(cell(exposure)) \(unit))"
        }
        return text
    }

    static func cell(_ value: Double?) -> String {
        guard let value else { return "–" }
        if value == value.rounded(), abs(value) < 1e9 { return String(Int(value)) }
        if abs(value) >= 100 { return String(format: "%.0f", value) }
        if abs(value) >= 1 { return String(format: "%.1f", value) }
        return String(format: "%.3g", value)
    }
}
