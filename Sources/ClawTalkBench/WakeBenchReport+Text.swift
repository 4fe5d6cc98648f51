import Foundation

extension WakeBenchReport {
    /// The report as printed on stdout: a header, one row per condition and trigger, the
    /// threshold sweep when there is one, and the run time.
    var text: String {
        var lines: [String] = []
        let labels = dataset.labels.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        lines.append("Wake benchmark: \(dataset.files) files (\(labels))")
        lines.append("dataset \(dataset.path), MANIFEST.txt sha256 \(dataset.manifestSHA256.prefix(16))…")
        let thresholdText = thresholds.sorted { $0.key < $1.key }.map { "\($0.key) \(Self.number($0.value))" }
        lines.append(
            "engines \(engines.map { "\($0.name) [\($0.triggers.joined(separator: ", "))]" }.joined(separator: ", ")); "
                + "thresholds \(thresholdText.joined(separator: ", ")); verifier \(verifier)")
        lines.append("")
        let header = [
            "Condition", "Engine", "Trigger", "Missed", "FRR [95% CI]", "FA (neg. clips, h)", "FA/h [95% CI]",
            "Latency ms p50/p95/max",
        ]
        var rows: [[String]] = []
        for metric in metrics {
            let missed = metric.positives > 0 ? "\(metric.missed)/\(metric.positives)" : "-"
            let frr =
                metric.frr.map { frr in
                    "\(Self.percent(frr)) [\(metric.frrCI95.map { "\(Self.percent($0[0]))–\(Self.percent($0[1]))" } ?? "")]"
                } ?? "no positives"
            let falseAccepts =
                "\(metric.falseAccepts) (\(metric.negatives), \(String(format: "%.2f", metric.negativeHours)))"
            let perHour =
                metric.faPerHour.map { rate in
                    "\(String(format: "%.1f", rate)) [\(metric.faPerHourCI95.map { String(format: "%.1f–%.1f", $0[0], $0[1]) } ?? "")]"
                } ?? "-"
            let latency = metric.latencyMs.map { String(format: "%.0f/%.0f/%.0f", $0.p50, $0.p95, $0.max) } ?? "-"
            rows.append([metric.condition, metric.engine, metric.trigger, missed, frr, falseAccepts, perHour, latency])
        }
        lines += Self.table(header: header, rows: rows)
        if !roc.isEmpty {
            lines.append("")
            lines.append("Threshold sweep (stage 1 only):")
            let sweepRows = roc.map { point in
                [
                    point.condition, point.engine, point.trigger, Self.number(point.threshold),
                    point.frr.map(Self.percent) ?? "-", "\(point.falseAccepts)",
                    String(format: "%.1f", point.faPerHour),
                ]
            }
            lines += Self.table(
                header: ["Condition", "Engine", "Trigger", "Threshold", "FRR", "FA", "FA/h"], rows: sweepRows)
        }
        lines.append("")
        let rtf = runtime.audioSeconds > 0 ? runtime.cpuSeconds / runtime.audioSeconds : 0
        lines.append(
            String(
                format:
                    "Run time %.1f s wall, %.1f s CPU for %.0f s of audio in the main pipeline (CPU/audio %.3f); %@",
                runtime.wallSeconds, runtime.cpuSeconds, runtime.audioSeconds, rtf, runtime.host))
        return lines.joined(separator: "\n") + "\n"
    }

    private static func table(header: [String], rows: [[String]]) -> [String] {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return [line(header)] + rows.map(line)
    }

    private static func percent(_ value: Double) -> String {
        String(format: "%.1f%%", value * 100)
    }

    private static func number(_ value: Double) -> String {
        value < 1e-3 ? String(format: "%.0e", value) : String(format: "%g", value)
    }
}
