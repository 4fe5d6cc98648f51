import ClawTalkCommand
import ClawTalkDesktop
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkCLI

@Suite("clawtalk service install")
struct ServiceInstallTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func theShippedUnitFilesAreTheGeneratedText() throws {
        let node = try String(contentsOf: Self.repo.appendingPathComponent("config/clawtalk.service"), encoding: .utf8)
        let stt = try String(
            contentsOf: Self.repo.appendingPathComponent("config/clawtalk-stt.service"), encoding: .utf8)
        #expect(node == UserServiceUnits.nodeUnit(), "config/clawtalk.service drifted from UserServiceUnits")
        #expect(stt == UserServiceUnits.sttUnit, "config/clawtalk-stt.service drifted from UserServiceUnits")
        for line in [
            "ExecStart=%h/.local/bin/clawtalk run", "KillSignal=SIGTERM", "Restart=on-failure",
            "Environment=CLAWTALK_LOG_SYSLOG_PREFIX=true", "ExecReload=/bin/kill -HUP $MAINPID",
        ] {
            #expect(node.split(separator: "\n").contains(Substring(line)), "missing \(line)")
        }
    }

    /// By default the node runs its own Whisper server; with --with-stt it uses the unit's.
    @Test func withSTTTheNodeUsesTheSeparateUnitsServer() {
        let own = UserServiceUnits.nodeUnit().split(separator: "\n")
        #expect(!own.contains("Wants=clawtalk-stt.service"))
        #expect(!own.contains(Substring(UserServiceUnits.externalSTTLine)))
        let external = UserServiceUnits.nodeUnit(externalSTT: true).split(separator: "\n")
        #expect(external.contains("Wants=clawtalk-stt.service"))
        #expect(external.contains(Substring(UserServiceUnits.externalSTTLine)))
    }

    @Test func installWritesTheUnitsWithThisBinaryAndExplainsAMissingSystemctl() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let binary = home.root + "/my bin/clawtalk"
        try FileManager.default.createDirectory(atPath: home.root + "/my bin", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: binary, contents: Data(), attributes: [.posixPermissions: 0o755])
        var environment = home.environment
        environment["PATH"] = home.root + "/empty"
        environment["USER"] = "tester"
        let capture = OutputCapture()
        let status = await CommandDispatcher.execute(
            root: ClawTalk.self, arguments: ["clawtalk", "service", "install", "--with-stt", "--binary", binary],
            io: capture.io, environment: environment)
        #expect(status == 0, "\(capture.error)")
        let directory = home.config + "/systemd/user"
        let node = try String(contentsOfFile: directory + "/clawtalk.service", encoding: .utf8)
        #expect(node.contains("ExecStart=\"\(binary)\" run"))
        #expect(node == UserServiceUnits.nodeUnit(binary: binary, externalSTT: true))
        #expect(FileManager.default.fileExists(atPath: directory + "/clawtalk-stt.service"))
        let mode = try FileManager.default.attributesOfItem(atPath: directory + "/clawtalk.service")[.posixPermissions]
        #expect(mode as? Int == 0o644)
        #expect(capture.output.contains("systemctl was not found"), "\(capture.output)")
        #expect(capture.output.contains("loginctl enable-linger tester"))

        // With the system's PATH: systemctl runs; here (no user manager) it fails with a clear
        // message, on a desktop it reloads. Either way the units are in place.
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let second = OutputCapture()
        let again = await CommandDispatcher.execute(
            root: ClawTalk.self, arguments: ["clawtalk", "service", "install", "--binary", binary],
            io: second.io, environment: environment)
        #expect(again == 0)
        let own = try String(contentsOfFile: directory + "/clawtalk.service", encoding: .utf8)
        #expect(own == UserServiceUnits.nodeUnit(binary: binary), "without --with-stt the node runs its own server")
        #expect(
            second.output.contains("daemon-reload: done") || second.output.contains("no systemd user manager"),
            "\(second.output)")

        let removed = OutputCapture()
        _ = await CommandDispatcher.execute(
            root: ClawTalk.self, arguments: ["clawtalk", "service", "uninstall"], io: removed.io,
            environment: environment)
        #expect(removed.output.contains("removed \(directory)/clawtalk.service"), "\(removed.output)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/clawtalk.service"))
    }

    @Test func aMissingBinaryIsRefused() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let capture = OutputCapture()
        let status = await CommandDispatcher.execute(
            root: ClawTalk.self, arguments: ["clawtalk", "service", "install", "--binary", "/nonexistent/clawtalk"],
            io: capture.io, environment: home.environment)
        #expect(status == 64)
        #expect(!FileManager.default.fileExists(atPath: home.config + "/systemd/user/clawtalk.service"))
    }
}
