import Foundation
import Testing

@testable import ClawTalkBench

/// `clawtalk bench compare` through the shipped binary, which hands `bench` to `clawtalk-bench`.
@Suite("clawtalk bench compare")
struct BenchCompareCommandTests {
    @Test func theCommandExitsOneOnARegressionAndExplainsUnreadableFiles() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ct-compare-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let basePath = folder.appendingPathComponent("base.json").path
        let slowerPath = folder.appendingPathComponent("slower.json").path
        try JSONEncoder().encode(BenchComparisonReports.base).write(to: URL(fileURLWithPath: basePath))
        var slower = BenchComparisonReports.base
        slower.metrics[0] = .latency("eou.latency", condition: "700 ms window", samples: [900, 950, 990])
        try JSONEncoder().encode(slower).write(to: URL(fileURLWithPath: slowerPath))

        let same = try await ClawTalkBinary.run(["bench", "compare", basePath, basePath])
        #expect(same.status == 0)
        #expect(same.output.contains("No regression beyond 10 %"))
        let worse = try await ClawTalkBinary.run(["bench", "compare", basePath, slowerPath])
        #expect(worse.status == 1)
        #expect(worse.output.contains("**regression**"))
        #expect(
            try await ClawTalkBinary.run(["bench", "compare", "--tolerance", "50", basePath, slowerPath]).status == 0)
        let missing = try await ClawTalkBinary.run(["bench", "compare", basePath, folder.path + "/nope.json"])
        #expect(missing.status != 0)
        #expect(missing.error.contains("cannot read"))
    }
}

/// A small report to compare (the figures do not matter, only that they differ).
enum BenchComparisonReports {
    static let base = BenchReport(
        suite: "full", startedAt: "2026-11-29T22:00:00Z",
        machine: BenchMachine(cpu: "Test CPU", cores: 2, kernel: "6.1.0", distro: "Debian 12"),
        commit: "abc123", corpus: "f00d", config: [:],
        metrics: [
            .latency("eou.latency", condition: "700 ms window", samples: [720, 730, 740]),
            .value("cpu.rtf.idle", condition: "file mode", unit: "rtf", value: 0.010),
        ], roc: [])
}
