import ClawTalkSpeech
import ClawTalkTesting
import Foundation
import Testing

@Suite("clawtalk doctor")
struct DoctorCommandTests {
    @Test func showsEverySettingWithItsSourceAndRedactsSecrets() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        try home.writeConfig("{ talk: { silenceTimeoutMs: 900 } }")
        var environment = home.environment
        environment["CLAWTALK_GATEWAY_TOKEN"] = "super-secret-token-value"
        let result = try await ClawTalkBinary.run(["doctor"], environment: environment)
        #expect(!result.output.contains("super-secret-token-value"))
        let lines = result.output.split(separator: "\n").map(String.init)
        let token = try #require(lines.first { $0.contains("gateway.token ") })
        #expect(token.contains("<set, redacted>") && token.contains("(env CLAWTALK_GATEWAY_TOKEN)"))
        let silence = try #require(lines.first { $0.contains("talk.silenceTimeoutMs ") })
        #expect(silence.contains("900 ms") && silence.contains(home.config + "/clawtalk/config.json5"))
        let level = try #require(lines.first { $0.contains("log.level ") })
        #expect(level.contains("(default)"))
        #expect(lines.contains { $0.hasPrefix("  OK   configuration: ") })
    }

    @Test func aBadConfigFileFailsNamingTheKeyAndFile() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        try home.writeConfig("{\n  talk: { silenceTimoutMs: 900 },\n}\n")
        let result = try await ClawTalkBinary.run(["doctor"], environment: home.environment)
        #expect(result.status == 1)
        let fail = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("  FAIL configuration:") })
        #expect(fail.contains("talk.silenceTimoutMs"))
        #expect(fail.contains("config.json5"))
        #expect(fail.contains("silenceTimeoutMs"), "expected a suggestion: \(fail)")
    }

    @Test func jsonHasChecksAndSettings() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let result = try await ClawTalkBinary.run(["doctor", "--json"], environment: home.environment)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.contains { $0["name"] as? String == "configuration" && $0["status"] as? String == "ok" })
        #expect(checks.contains { $0["name"] as? String == "models" })
        let settings = try #require(object["settings"] as? [[String: Any]])
        let url = try #require(settings.first { $0["key"] as? String == "gateway.url" })
        #expect(url["value"] as? String == "<unset>")
        #expect(url["source"] as? String == "default")
        // A failing check makes the exit status 1; otherwise 0.
        let anyFailed = checks.contains { $0["status"] as? String == "fail" }
        #expect(result.status == (anyFailed ? 1 : 0))
    }

    /// With nothing installed in the data directory, doctor names every missing speech piece
    /// and the command that installs them (the binary runs from .build: scripts/setup), offline
    /// too; with everything there, the check passes.
    @Test func missingSpeechPiecesAreNamedWithTheirFix() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let before = try await ClawTalkBinary.run(["doctor", "--offline"], environment: home.environment)
        #expect(before.status == 1)
        let lines = before.output.split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.hasPrefix("  FAIL speech pieces: missing in ") })
        #expect(lines[index].contains(home.data + "/clawtalk"))
        #expect(lines[index].contains("Whisper base model (models/whisper-base/model.bin)"))
        #expect(lines[index].contains("speech server (venv/bin/clawtalk-speech)"))
        #expect(lines[index + 1].hasPrefix("        fix: scripts/setup (downloads about 360 MB"))

        for piece in SpeechSetup.pieces {
            let path = home.data + "/clawtalk/" + piece.path
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            #expect(
                FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o755]))
        }
        let after = try await ClawTalkBinary.run(["doctor", "--offline"], environment: home.environment)
        #expect(after.output.contains("  OK   speech pieces: all 6 installed in \(home.data)/clawtalk\n"))
    }
}
