import Foundation

extension BenchReport {
    /// Plot size of one panel.
    private static let panelWidth = 640.0
    private static let panelHeight = 320.0
    private static let margin = 56.0
    private static let palette = [
        "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
        "#bcbd22",
    ]

    /// `report.svg`: the empirical CDFs of every latency metric with samples (goal lines dashed)
    /// and the ROC (FRR against FA/h, logarithmic FA/h axis), plain deterministic SVG.
    var svg: String {
        let latencies = metrics.filter { $0.unit == "ms" && ($0.samples?.isEmpty == false) }
        let height = Self.panelHeight * 2 + Self.margin * 4
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.number(Self.panelWidth + Self.margin * 2 + 260))" \
            height="\(Self.number(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(Self.number(Self.margin))" y="20" font-size="13">clawtalk bench (\(Self.escape(suite))) — \
            \(Self.escape(machine.summary)) — \(Self.escape(String((commit ?? "unknown").prefix(12))))</text>

            """
        out += latencyPanel(latencies, top: Self.margin)
        out += rocPanel(top: Self.margin * 3 + Self.panelHeight)
        out += "</svg>\n"
        return out
    }

    private func latencyPanel(_ latencies: [BenchMetric], top: Double) -> String {
        let maxX = max(latencies.compactMap(\.max).max() ?? 100, 50) * 1.05
        var out = frame(top: top, title: "Latency CDFs (ms); dashed: goal", xLabel: "ms", yLabel: "fraction")
        out += ticks(top: top, maxX: maxX, logX: false)
        guard !latencies.isEmpty else { return out + note(top: top, "no latency samples") }
        for (index, metric) in latencies.enumerated() {
            let color = Self.palette[index % Self.palette.count]
            let sorted = (metric.samples ?? []).sorted()
            var points: [String] = []
            for (rank, value) in sorted.enumerated() {
                let x = Self.margin + value / maxX * Self.panelWidth
                let y0 = top + Self.panelHeight * (1 - Double(rank) / Double(sorted.count))
                let y1 = top + Self.panelHeight * (1 - Double(rank + 1) / Double(sorted.count))
                points.append("\(Self.number(x)),\(Self.number(y0)) \(Self.number(x)),\(Self.number(y1))")
            }
            out +=
                "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" points=\"\(points.joined(separator: " "))\"/>\n"
            if let goal = BenchGoal.parseBound(metric.goal), goal < maxX {
                let x = Self.number(Self.margin + goal / maxX * Self.panelWidth)
                out +=
                    "<line x1=\"\(x)\" y1=\"\(Self.number(top))\" x2=\"\(x)\" y2=\"\(Self.number(top + Self.panelHeight))\" stroke=\"\(color)\" stroke-dasharray=\"4 3\"/>\n"
            }
            out += legend(index: index, top: top, color: color, text: "\(metric.name) \(metric.condition)")
        }
        return out
    }

    private func rocPanel(top: Double) -> String {
        var out = frame(top: top, title: "ROC: FRR against false accepts per hour (log)", xLabel: "FA/h", yLabel: "FRR")
        let rates = roc.map(\.faPerHour).filter { $0 > 0 }
        let low = log10(max(rates.min() ?? 0.1, 0.01)) - 0.5
        let high = log10(max(rates.max() ?? 10, 1)) + 0.5
        out += ticks(top: top, maxX: high, logX: true, minX: low)
        guard !roc.isEmpty else { return out + note(top: top, "no threshold sweep in this run") }
        // A trigger without positives has no miss rate: nothing to draw.
        let roc = roc.filter { $0.frr != nil }
        var curves: [String] = []
        for point in roc where !curves.contains(Self.curve(point)) { curves.append(Self.curve(point)) }
        for (index, curve) in curves.enumerated() {
            let color = Self.palette[index % Self.palette.count]
            let points = roc.filter { Self.curve($0) == curve }.map { point -> String in
                // FA/h 0 sits on the left edge.
                let position = point.faPerHour > 0 ? (log10(point.faPerHour) - low) / (high - low) : 0
                let x = Self.margin + min(max(position, 0), 1) * Self.panelWidth
                let y = top + Self.panelHeight * (1 - (point.frr ?? 0))
                return "\(Self.number(x)),\(Self.number(y))"
            }
            out +=
                "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" points=\"\(points.joined(separator: " "))\"/>\n"
            for point in points {
                let xy = point.split(separator: ",")
                out += "<circle cx=\"\(xy[0])\" cy=\"\(xy[1])\" r=\"2\" fill=\"\(color)\"/>\n"
            }
            out += legend(index: index, top: top, color: color, text: curve)
        }
        return out
    }

    // MARK: - Pieces

    private static func curve(_ point: WakeBenchReport.ROCPoint) -> String {
        "\(point.engine) \(point.trigger) \(point.condition)"
    }

    private func frame(top: Double, title: String, xLabel: String, yLabel: String) -> String {
        let m = Self.margin
        let bottom = top + Self.panelHeight
        return """
            <text x="\(Self.number(m))" y="\(Self.number(top - 8))" font-size="12">\(Self.escape(title))</text>
            <rect x="\(Self.number(m))" y="\(Self.number(top))" width="\(Self.number(Self.panelWidth))" \
            height="\(Self.number(Self.panelHeight))" fill="none" stroke="#444"/>
            <text x="\(Self.number(m + Self.panelWidth / 2))" y="\(Self.number(bottom + 32))">\(xLabel)</text>
            <text x="12" y="\(Self.number(top + Self.panelHeight / 2))">\(yLabel)</text>

            """
    }

    private func ticks(top: Double, maxX: Double, logX: Bool, minX: Double = 0) -> String {
        var out = ""
        let bottom = top + Self.panelHeight
        for step in 0...4 {
            let fraction = Double(step) / 4
            let y = Self.number(bottom - fraction * Self.panelHeight)
            out += "<text x=\"\(Self.number(Self.margin - 30))\" y=\"\(y)\">\(Self.number(fraction))</text>\n"
            let value = minX + (maxX - minX) * fraction
            let label = logX ? Self.cell(pow(10, value)) : Self.cell(value.rounded())
            let x = Self.number(Self.margin + fraction * Self.panelWidth)
            out += "<text x=\"\(x)\" y=\"\(Self.number(bottom + 14))\" text-anchor=\"middle\">\(label)</text>\n"
        }
        return out
    }

    private func legend(index: Int, top: Double, color: String, text: String) -> String {
        let x = Self.margin * 1.5 + Self.panelWidth
        let y = top + 12 + Double(index) * 14
        return "<rect x=\"\(Self.number(x))\" y=\"\(Self.number(y - 8))\" width=\"10\" height=\"3\" fill=\"\(color)\"/>"
            + "<text x=\"\(Self.number(x + 14))\" y=\"\(Self.number(y))\">\(Self.escape(text))</text>\n"
    }

    private func note(top: Double, _ text: String) -> String {
        "<text x=\"\(Self.number(Self.margin + 12))\" y=\"\(Self.number(top + 20))\">\(Self.escape(text))</text>\n"
    }

    private static func number(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
