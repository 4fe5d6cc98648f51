import Foundation
import FoundationXML
import Testing

@testable import ClawTalkBench

@Suite struct BenchReportTests {
    static func report() -> BenchReport {
        let metrics: [BenchMetric] = [
            .latency(
                "wake.latency", condition: "espeak pocketsphinx 'computer' clean", samples: [120, 80, 400, 150],
                goal: .wakeLatency),
            .latency("capture.latency", condition: "block 20 ms", samples: [21, 25, 30]),
            .value("cpu.rtf.idle", condition: "file mode", unit: "rtf", value: 0.011, goal: .idleCPU),
            .unmeasured("wake.chime", condition: "loopback", unit: "ms", goal: .wakeToChime, reason: "no chime path"),
        ]
        let roc = [
            WakeBenchReport.ROCPoint(
                engine: "pocketsphinx", trigger: "computer", condition: "espeak clean", threshold: 1e-20,
                positives: 10, missed: 2, frr: 0.2, falseAccepts: 1, faPerHour: 3.5),
            WakeBenchReport.ROCPoint(
                engine: "pocketsphinx", trigger: "computer", condition: "espeak clean", threshold: 1e-30,
                positives: 10, missed: 0, frr: 0, falseAccepts: 4, faPerHour: 14),
        ]
        return BenchReport(
            suite: "quick", startedAt: "2026-11-29T19:00:00Z",
            machine: BenchMachine(cpu: "Test CPU", cores: 2, kernel: "6.1.0", distro: "Debian 12"),
            commit: "abc123", corpus: "f00d", config: ["frame": "20 ms"], metrics: metrics, roc: roc)
    }

    @Test func latencyMetricsUseNearestRankPercentilesAndCheckTheGoal() throws {
        let metric = Self.report().metrics[0]
        #expect(metric.n == 4 && metric.p50 == 120 && metric.p95 == 400 && metric.max == 400)
        #expect(metric.value == 120)
        #expect(metric.goal == "p50 ≤ 200, p95 ≤ 350")
        #expect(metric.met == false)
        let fast = BenchMetric.latency("wake.latency", condition: "c", samples: [100, 150], goal: .wakeLatency)
        #expect(fast.met == true)
    }

    @Test func goalsWithoutAFigureAreUnknown() {
        #expect(
            BenchGoal.idleCPU.isMet(by: .unmeasured("cpu.rtf.idle", condition: "c", unit: "rtf", reason: "r")) == nil)
        #expect(BenchGoal.idleCPU.isMet(by: .value("cpu.rtf.idle", condition: "c", unit: "rtf", value: 0.03)) == false)
        #expect(BenchGoal.parseBound("p50 ≤ 200, p95 ≤ 350") == 350)
        #expect(BenchGoal.parseBound("≤ 0.5") == 0.5)
        #expect(BenchGoal.endOfUtterance(windowMs: 700).text == "p95 ≤ 764")
    }

    @Test func jsonHasTheSchemaKeysAndNullsForUnmeasuredMetrics() throws {
        let encoder = JSONEncoder()
        let object = try #require(
            try JSONSerialization.jsonObject(with: encoder.encode(Self.report())) as? [String: Any])
        #expect(object["commit"] as? String == "abc123")
        #expect(object["corpus"] as? String == "f00d")
        #expect((object["machine"] as? [String: Any])?["cores"] as? Int == 2)
        let metrics = try #require(object["metrics"] as? [[String: Any]])
        #expect(metrics.count == 4)
        for metric in metrics {
            for key in ["name", "condition", "unit", "n", "p50", "p95", "max", "value", "goal", "met"] {
                #expect(metric.keys.contains(key), "\(key) missing in \(metric)")
            }
        }
        let chime = try #require(metrics.first { $0["name"] as? String == "wake.chime" })
        #expect(chime["value"] is NSNull && chime["met"] is NSNull)
        #expect(chime["reason"] as? String == "no chime path")
        let decoded = try JSONDecoder().decode(BenchReport.self, from: encoder.encode(Self.report()))
        #expect(decoded.metrics == Self.report().metrics)
    }

    @Test func rocCSVHasALinePerSweepPoint() {
        let lines = Self.report().rocCSV.split(separator: "\n")
        #expect(lines.first == "engine,trigger,condition,threshold,frr,fa_per_hour")
        #expect(
            lines.dropFirst().map(String.init) == [
                "pocketsphinx,computer,espeak clean,1e-20,0.2,3.5", "pocketsphinx,computer,espeak clean,1e-30,0.0,14.0",
            ])
    }

    @Test func markdownHasATablePerMetricWithTheGoalBesideTheValue() {
        let text = Self.report().markdown
        #expect(text.contains("- Machine: Test CPU, 2 cores, Debian 12, kernel 6.1.0"))
        #expect(text.contains("- Commit: abc123"))
        #expect(text.contains("- Corpus manifest SHA-256: f00d"))
        for name in ["wake.latency", "capture.latency", "cpu.rtf.idle", "wake.chime", "wake.roc"] {
            #expect(text.contains("\n## \(name)\n"), "\(name)")
        }
        #expect(
            text.contains(
                "| espeak pocketsphinx 'computer' clean | 4 | 120 | 400 | 400 | 120 ms | – | p50 ≤ 200, p95 ≤ 350 | **no** |"
            ))
        #expect(text.contains("| loopback | – | – | – | – | not measured | – | p95 ≤ 50 | – | no chime path |"))
        #expect(text.contains("| 0.011 rtf | – | ≤ 0.02 | yes |"))
    }

    @Test func svgIsDeterministicWithACurvePerLatencyMetricAndTheROC() throws {
        let svg = Self.report().svg
        #expect(svg == Self.report().svg)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        // Two latency CDFs and one ROC curve.
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 3)
        // The wake-latency goal line (p95 350 ms) is within the axis (max 400 ms × 1.05).
        #expect(svg.contains("stroke-dasharray"))
        #expect(svg.contains("pocketsphinx computer espeak clean"))
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
    }
}
