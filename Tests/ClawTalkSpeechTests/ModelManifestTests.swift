import Foundation
import Testing

@testable import ClawTalkSpeech

@Suite struct ModelManifestTests {
    @Test func everyShippedModelMatchesItsManifestHash() throws {
        let models = repositoryRoot().appendingPathComponent("Models")
        let manifest = try ModelManifest(directory: models)
        #expect(manifest.entries.count >= 8)
        for check in manifest.verify() {
            guard case .ok = check else {
                Issue.record("model check failed: \(check)")
                continue
            }
        }
        // Every file under Models/microwakeword is listed (nothing unaccounted for ships).
        let listed = Set(manifest.entries.map(\.path))
        let files = try FileManager.default.contentsOfDirectory(
            atPath: models.appendingPathComponent("microwakeword").path)
        for file in files { #expect(listed.contains("microwakeword/\(file)"), "unlisted model file \(file)") }
    }

    @Test func aChangedFileIsReportedAsMismatch() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ct-manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("abc".utf8).write(to: dir.appendingPathComponent("a.bin"))
        try Data("abd".utf8).write(to: dir.appendingPathComponent("b.bin"))
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        let manifest = "# comment\na.bin\tsrc\tMIT\t\(abc)\nb.bin\tsrc\tMIT\t\(abc)\nc.bin\tsrc\tMIT\t\(abc)\n"
        try Data(manifest.utf8).write(to: dir.appendingPathComponent("MANIFEST"))
        let checks = try ModelManifest(directory: dir).verify()
        #expect(checks[0] == .ok(path: "a.bin"))
        guard case .mismatch(let path, let expected, let actual) = checks[1] else {
            Issue.record("expected a mismatch, got \(checks[1])")
            return
        }
        #expect(path == "b.bin" && expected == abc && actual != abc)
        #expect(checks[2] == .missing(path: "c.bin"))
    }

    @Test(arguments: [
        "a.bin\tsrc\tMIT", "a.bin\tsrc\tMIT\tnothex", "a.bin src MIT " + String(repeating: "0", count: 64),
    ])
    func malformedLinesAreRejectedWithTheLineNumber(_ line: String) {
        #expect(throws: SpeechError.self) { try ModelManifest.parse("# header\n" + line, file: "MANIFEST") }
        do {
            _ = try ModelManifest.parse("# header\n" + line, file: "MANIFEST")
        } catch {
            #expect("\(error)".contains("line 2"))
        }
    }

    @Test func locatesTheRepositoryModelsFromABuildProductPath() throws {
        let repo = repositoryRoot()
        let exe = repo.appendingPathComponent(".build/release/clawtalk")
        let found = try ModelDirectory.locate(environment: ["HOME": "/nonexistent"], executable: exe)
        #expect(found.standardizedFileURL.path == repo.appendingPathComponent("Models").standardizedFileURL.path)
        #expect(throws: SpeechError.self) {
            try ModelDirectory.locate(
                environment: ["HOME": "/nonexistent"], executable: URL(fileURLWithPath: "/usr/bin/clawtalk"))
        }
    }
}
