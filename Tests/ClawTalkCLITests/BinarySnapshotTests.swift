import Foundation
import Testing

/// Help and version output of the built binary against `Snapshots/<name>.txt`.
///
/// `UPDATE_SNAPSHOTS=1 swift test …` rewrites the files in the source tree and fails each test
/// with a note, so an update run can never pass as a comparison.
@Suite("Binary snapshots")
struct BinarySnapshotTests {
    static let cases: [(name: String, arguments: [String])] = [
        ("root-help", ["--help"]),
        ("run-help", ["run", "--help"]),
        ("pair-help", ["pair", "--help"]),
        ("status-help", ["status", "--help"]),
        ("gateways-help", ["gateways", "--help"]),
        ("gateways-list-help", ["gateways", "list", "--help"]),
        ("gateways-use-help", ["gateways", "use", "--help"]),
        ("gateways-forget-help", ["gateways", "forget", "--help"]),
        ("devices-help", ["devices", "--help"]),
        ("record-help", ["record", "--help"]),
        ("say-help", ["say", "--help"]),
        ("transcribe-help", ["transcribe", "--help"]),
        ("ptt-help", ["ptt", "--help"]),
        ("ptt-start-help", ["ptt", "start", "--help"]),
        ("ptt-stop-help", ["ptt", "stop", "--help"]),
        ("ptt-toggle-help", ["ptt", "toggle", "--help"]),
        ("ptt-cancel-help", ["ptt", "cancel", "--help"]),
        ("ptt-once-help", ["ptt", "once", "--help"]),
        ("talk-help", ["talk", "--help"]),
        ("talk-on-help", ["talk", "on", "--help"]),
        ("bench-help", ["bench", "--help"]),
        ("bench-wake-help", ["bench", "wake", "--help"]),
        ("bench-loopback-help", ["bench", "loopback", "--help"]),
        ("bench-cpu-help", ["bench", "cpu", "--help"]),
        ("bench-soak-help", ["bench", "soak", "--help"]),
        ("bench-all-help", ["bench", "all", "--help"]),
        ("doctor-help", ["doctor", "--help"]),
        ("setup-help", ["setup", "--help"]),
        ("discover-help", ["discover", "--help"]),
        ("service-help", ["service", "--help"]),
        ("service-install-help", ["service", "install", "--help"]),
        ("service-uninstall-help", ["service", "uninstall", "--help"]),
        ("version-help", ["version", "--help"]),
        ("help-help", ["help", "--help"]),
        ("version", ["version"]),
    ]

    @Test(arguments: cases)
    func matchesSnapshot(name: String, arguments: [String]) async throws {
        let result = try await ClawTalkBinary.run(arguments)
        #expect(result.status == 0)
        #expect(result.error.isEmpty)
        try Snapshot.assertMatches(result.output, named: name)
    }

    /// Every way of asking for the same help prints the same text.
    static let equivalents: [(arguments: [String], sameAs: [String])] = [
        (["help"], ["--help"]),
        (["-h"], ["--help"]),
        (["help", "run"], ["run", "--help"]),
        (["help", "pair"], ["pair", "-h"]),
        (["help", "say"], ["say", "--help"]),
        (["help", "transcribe"], ["transcribe", "-h"]),
        (["help", "ptt"], ["ptt", "--help"]),
        (["ptt"], ["ptt", "--help"]),
        (["help", "ptt", "once"], ["ptt", "once", "--help"]),
        (["talk"], ["talk", "--help"]),
        (["help", "bench", "cpu"], ["bench", "cpu", "--help"]),
        (["bench"], ["bench", "--help"]),
        (["help", "doctor"], ["doctor", "--help"]),
        (["help", "gateways", "use"], ["gateways", "use", "--help"]),
        (["help", "version"], ["version", "--help"]),
        (["say", "--bogus", "--help"], ["say", "--help"]),
        (["--log-level", "debug", "--help"], ["run", "--help"]),
    ]

    @Test(arguments: equivalents)
    func helpSpellingsAgree(arguments: [String], sameAs: [String]) async throws {
        let result = try await ClawTalkBinary.run(arguments)
        let reference = try await ClawTalkBinary.run(sameAs)
        #expect(result.status == 0)
        #expect(result.error.isEmpty)
        #expect(result.output.hasPrefix("OVERVIEW: "))
        #expect(result.output == reference.output)
    }

    /// `clawtalk --version` (what packagers and scripts ask) is `clawtalk version`.
    @Test func dashDashVersionPrintsTheVersion() async throws {
        let result = try await ClawTalkBinary.run(["--version"])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("clawtalk "))
        #expect(result.output == (try await ClawTalkBinary.run(["version"])).output)
    }

    @Test func everyHelpListsHelpAndStaysWithin80Columns() async throws {
        for (name, arguments) in Self.cases where name.hasSuffix("-help") {
            let output = try await ClawTalkBinary.run(arguments).output
            #expect(output.contains("\n  -h, --help              Show help information.\n"), "\(name)")
            for line in output.split(separator: "\n") where !line.hasPrefix("USAGE: ") {
                #expect(line.count <= 80, "\(name): \(line)")
            }
        }
    }
}

/// Reads and (in update mode) writes `Snapshots/<name>.txt`.
enum Snapshot {
    /// Whether this run rewrites snapshots instead of comparing.
    static var isUpdating: Bool { ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] == "1" }

    /// The snapshot folder in the source tree (written in update mode).
    static func sourceURL(_ name: String, filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent()
            .appendingPathComponent("Snapshots").appendingPathComponent("\(name).txt")
    }

    /// The snapshot copied into the test bundle's resources (compared in normal runs).
    static func resourceURL(_ name: String) -> URL? {
        Bundle.module.url(forResource: name, withExtension: "txt", subdirectory: "Snapshots")
    }

    /// Compares `actual` with the stored snapshot, or rewrites it when `UPDATE_SNAPSHOTS=1`.
    static func assertMatches(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        if isUpdating {
            let url = sourceURL(name)
            try actual.write(to: url, atomically: true, encoding: .utf8)
            Issue.record(
                "Updated snapshot \(url.lastPathComponent); run again without UPDATE_SNAPSHOTS=1 to compare.",
                sourceLocation: sourceLocation)
            return
        }
        guard let url = resourceURL(name) else {
            Issue.record(
                "Missing snapshot Snapshots/\(name).txt; record it with UPDATE_SNAPSHOTS=1.",
                sourceLocation: sourceLocation)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(
            actual == expected, "snapshot \(name).txt differs:\n\(firstDifference(actual, expected))",
            sourceLocation: sourceLocation)
    }

    /// The first differing line, for a readable failure.
    static func firstDifference(_ actual: String, _ expected: String) -> String {
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(a.count, e.count) {
            let actualLine = index < a.count ? String(a[index]) : "<end>"
            let expectedLine = index < e.count ? String(e[index]) : "<end>"
            if actualLine != expectedLine {
                return "line \(index + 1)\n  expected: \(expectedLine)\n  actual:   \(actualLine)"
            }
        }
        return "no line differs"
    }
}
