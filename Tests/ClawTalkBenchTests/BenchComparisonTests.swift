import Foundation
import Testing

@testable import ClawTalkBench

@Suite("bench compare")
struct BenchComparisonTests {
    static func report(_ metrics: [BenchMetric]) -> BenchReport {
        BenchReport(
            suite: "full", startedAt: "2026-11-29T22:00:00Z",
            machine: BenchMachine(cpu: "Test CPU", cores: 2, kernel: "6.1.0", distro: "Debian 12"),
            commit: "abc123", corpus: "f00d", config: [:], metrics: metrics, roc: [])
    }

    static let base = report([
        .latency("eou.latency", condition: "700 ms window", samples: [720, 730, 740]),
        .latency("capture.latency", condition: "block 20 ms", samples: [19, 20, 21]),
        .value("cpu.rtf.idle", condition: "file mode", unit: "rtf", value: 0.010),
        .value("wake.frr", condition: "recorded computer clean", unit: "ratio", value: 0.30),
        .unmeasured("wake.chime", condition: "loopback", unit: "ms", reason: "no chime"),
        .value("memory.rss.peak", condition: "bench", unit: "MiB", value: 375),
    ])

    @Test func growthBeyondTheToleranceIsARegressionAndDropsAreImprovements() {
        let new = Self.report([
            .latency("eou.latency", condition: "700 ms window", samples: [720, 735, 900]),
            .latency("capture.latency", condition: "block 20 ms", samples: [19, 20, 22.5]),
            .value("cpu.rtf.idle", condition: "file mode", unit: "rtf", value: 0.0105),
            .value("wake.frr", condition: "recorded computer clean", unit: "ratio", value: 0.20),
            .latency("wake.chime", condition: "loopback", samples: [3, 4]),
            .value("tts.ttfa.espeak", condition: "loopback", unit: "ms", value: 1),
        ])
        let comparison = BenchComparison(base: Self.base, new: new, tolerance: 0.1)
        let verdicts = Dictionary(uniqueKeysWithValues: comparison.rows.map { ($0.name, $0.verdict) })
        #expect(verdicts["eou.latency"] == .regression, "p95 740 → 900 ms")
        #expect(verdicts["capture.latency"] == .same, "+1.5 ms is within the 2 ms floor")
        #expect(verdicts["cpu.rtf.idle"] == .same, "+5 % is within 10 %")
        #expect(verdicts["wake.frr"] == .better)
        #expect(verdicts["wake.chime"] == .unmeasured, "measured now, not before")
        #expect(verdicts["tts.ttfa.espeak"] == .added)
        #expect(verdicts["memory.rss.peak"] == .removed)
        #expect(comparison.hasRegression)
        #expect(comparison.rows.first?.figure == "p95")
        #expect(comparison.rows.first { $0.name == "cpu.rtf.idle" }?.figure == "value")
        #expect(
            comparison.markdown.contains(
                "| eou.latency | 700 ms window | p95 | 740 ms | 900 ms | +21.6 % | **regression** |"))
        #expect(comparison.markdown.hasSuffix("1 of 7 metrics regressed beyond 10 %.\n"))

        let lenient = BenchComparison(base: Self.base, new: new, tolerance: 0.25)
        #expect(!lenient.hasRegression)
    }

    @Test func aReportComparedWithItselfHasNoRegression() throws {
        let data = try JSONEncoder().encode(Self.base)
        let decoded = try JSONDecoder().decode(BenchReport.self, from: data)
        let comparison = BenchComparison(base: Self.base, new: decoded, tolerance: 0)
        #expect(comparison.rows.allSatisfy { $0.verdict == .same })
        #expect(comparison.markdown.hasSuffix("No regression beyond 0 % (6 metrics compared).\n"))
    }
}
