import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkSpeech

/// The supervisor against real processes and sockets: the in-process Wyoming peer as a server
/// run by someone else, and the fake installed server (a Python Wyoming peer) as its child.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct SpeechServerSupervisorTests {
    /// A data directory with the fake server installed, and a file each of its runs appends its
    /// pid to.
    struct Install {
        let root: String
        let pidFile: String
        let configuration: WyomingServerProcess.Configuration

        init(exitAfter: Double? = nil) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("stt-\(UUID().uuidString)").path
            pidFile = root + "/pids"
            try FakeWhisperInstall.install(dataDirectory: root)
            var configuration = SpeechServerSupervisor.installedServer(
                paths: XDGPaths(environment: ["XDG_DATA_HOME": root]))
            configuration.environment["FAKE_WHISPER_PIDFILE"] = pidFile
            if let exitAfter { configuration.environment["FAKE_WHISPER_EXIT_AFTER"] = "\(exitAfter)" }
            configuration.readyTimeout = .seconds(60)
            self.configuration = configuration
        }

        var pids: [pid_t] {
            ((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                pid_t($0)
            }
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    static func settings(port: Int, mode: SpeechServerMode = .auto) -> STTSettings {
        var settings = STTSettings()
        settings.wyomingPort = port
        settings.server = mode
        return settings
    }

    /// The first published status that satisfies `condition` (waits as long as it takes).
    static func status(
        of supervisor: SpeechServerSupervisor, where condition: @escaping @Sendable (SpeechServerStatus) -> Bool
    ) async -> SpeechServerStatus? {
        for await status in supervisor.status.subscribe(replayingLatest: true) where condition(status) {
            return status
        }
        return nil
    }

    @Test func withNoServerTheInstalledOneIsStartedAndStoppedWithTheRun() async throws {
        let install = try Install()
        defer { install.remove() }
        let port = try LoopbackPort.pick()
        let supervisor = SpeechServerSupervisor(
            settings: Self.settings(port: port), server: install.configuration, logger: .discarding)
        let run = Task { await supervisor.run() }
        let ready = try #require(await Self.status(of: supervisor) { $0.ready })
        #expect(ready.role == .supervised)
        #expect(ready.address == "127.0.0.1:\(port)")
        let pid = try #require(ready.pid)
        #expect(install.pids == [pid])
        // It answers as a speech-to-text server on the configured port.
        let transcriber = WyomingTranscriber(configuration: .init(port: port))
        let transcript = try await transcriber.transcribe(
            TranscriptionFixtures.pinkNoise(seconds: 1), options: TranscriptionOptions(language: "en"))
        #expect(transcript.text == FakeWhisperInstall.defaultText)
        run.cancel()
        await run.value
        #expect(await eventually { !ChildProcessTests.isAlive(pid) })
    }

    @Test func aServerThatDiesIsRestarted() async throws {
        let install = try Install(exitAfter: 0.5)
        defer { install.remove() }
        let supervisor = SpeechServerSupervisor(
            settings: Self.settings(port: try LoopbackPort.pick()), server: install.configuration,
            logger: .discarding)
        let run = Task { await supervisor.run() }
        defer { run.cancel() }
        let first = try #require(await Self.status(of: supervisor) { $0.ready })
        let exited = try #require(await Self.status(of: supervisor) { $0.detail.contains("restarting in") })
        #expect(!exited.ready && exited.role == .supervised)
        #expect(exited.detail.contains("exited (status 3)"))
        let second = try #require(await Self.status(of: supervisor) { $0.ready && $0.pid != first.pid })
        #expect(second.role == .supervised)
        #expect(install.pids.count >= 2)
    }

    @Test func aServerThatAnswersIsUsedAndNothingIsStarted() async throws {
        let install = try Install()
        defer { install.remove() }
        let external = try FakeWyomingServer(behaviour: .transcript("hello"))
        let supervisor = SpeechServerSupervisor(
            settings: Self.settings(port: external.port), server: install.configuration, logger: .discarding)
        let run = Task { await supervisor.run() }
        defer { run.cancel() }
        let status = try #require(await Self.status(of: supervisor) { $0.role != .none })
        #expect(status.role == .external)
        #expect(status.ready)
        #expect(status.pid == nil)
        #expect(install.pids.isEmpty)
    }

    @Test func externalAndOffNeverStartAServer() async throws {
        let install = try Install()
        defer { install.remove() }
        for mode in [SpeechServerMode.external, .off] {
            let supervisor = SpeechServerSupervisor(
                settings: Self.settings(port: closedLoopbackPort(), mode: mode), server: install.configuration,
                logger: .discarding)
            let run = Task { await supervisor.run() }
            let status = try #require(await Self.status(of: supervisor) { $0.detail != "not probed yet" })
            #expect(!status.ready)
            #expect(status.detail.contains(mode == .off ? "stt.server is off" : "stt.server is external"))
            run.cancel()
            await run.value
        }
        #expect(install.pids.isEmpty)
    }

    @Test func aMissingInstallLeavesNoServerAndSaysWhy() async throws {
        var configuration = SpeechServerSupervisor.installedServer(
            paths: XDGPaths(environment: ["XDG_DATA_HOME": "/nonexistent/clawtalk-test"]))
        configuration.readyTimeout = .seconds(5)
        let supervisor = SpeechServerSupervisor(
            settings: Self.settings(port: closedLoopbackPort()), server: configuration, logger: .discarding)
        let run = Task { await supervisor.run() }
        defer { run.cancel() }
        let status = try #require(await Self.status(of: supervisor) { $0.detail != "not probed yet" })
        #expect(status.role == .none)
        #expect(status.detail.contains("is not installed (run scripts/setup)"))
    }
}

@Suite struct SpeechServerPlanTests {
    @Test(arguments: [
        (SpeechServerMode.auto, true, true, nil as String?, SpeechServerPlan.Decision.useExternal),
        (.auto, false, true, nil, .launch),
        (.auto, false, true, "not installed", .none("not installed")),
        (.auto, false, false, nil, .none("no server answers, and the address is not on this machine")),
        (.external, true, false, nil, .useExternal),
        (.external, false, true, nil, .none("no server answers (stt.server is external)")),
        (.off, true, true, nil, .stop),
    ])
    func decisions(
        mode: SpeechServerMode, answered: Bool, local: Bool, notInstalled: String?, expected: SpeechServerPlan.Decision
    ) {
        #expect(
            SpeechServerPlan.decide(mode: mode, answered: answered, isLocal: local, notInstalled: notInstalled)
                == expected)
    }

    @Test func loopbackHostsAndSocketsAreLocal() {
        for host in ["127.0.0.1", "localhost", "::1", "127.0.1.1", "LOCALHOST"] {
            #expect(WyomingAddress.tcp(host: host, port: 1).isLocal, "\(host)")
        }
        for host in ["192.168.1.5", "whisper.lan", "10.0.0.1"] {
            #expect(!WyomingAddress.tcp(host: host, port: 1).isLocal)
        }
        #expect(WyomingAddress.unix(path: "/run/user/1000/clawtalk/speech.sock").isLocal)
    }

    @Test func theOwnSocketIsStartedWhateverAnswersAndNeverUsedByExternal() {
        #expect(
            SpeechServerPlan.decide(mode: .auto, own: true, answered: true, isLocal: true, notInstalled: nil) == .launch
        )
        #expect(
            SpeechServerPlan.decide(mode: .auto, own: true, answered: false, isLocal: true, notInstalled: "missing")
                == .none("missing"))
    }

    @Test func restartsBackOffAndResetAfterAStableRun() {
        var backoff = RestartBackoff()
        let delays = (0..<8).map { _ in backoff.delay(after: .seconds(1)) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
        #expect(backoff.delay(after: .seconds(120)) == .seconds(1))
        #expect(backoff.delay(after: .zero) == .seconds(2))
    }
}

@Suite struct WyomingServerLogTests {
    @Test func transcriptsGoIntoASensitiveField() {
        let event = WyomingServerLog.event(for: "INFO|wyoming_faster_whisper.dispatch_handler| What time is it?")
        #expect(event.level == .debug)
        #expect(event.fields["transcript"] == .string(" What time is it?"))
        #expect(event.fields["line"] == nil)
        #expect(LogRedaction.isSensitive("transcript"))
    }

    @Test func otherLinesKeepTheirLevel() {
        let warning = WyomingServerLog.event(for: "WARNING|wyoming_faster_whisper.dispatch_handler|No transcriber")
        #expect(warning.level == .warning)
        #expect(warning.fields["line"] == .string("No transcriber"))
        #expect(WyomingServerLog.event(for: "CRITICAL|x|boom").level == .error)
        let raw = WyomingServerLog.event(for: "Traceback (most recent call last):")
        #expect(raw.level == .notice)
        #expect(raw.fields["line"] == .string("Traceback (most recent call last):"))
    }

    @Test func theLastLinesOfACrashAreRedactedToo() {
        let lines = "INFO|wyoming_faster_whisper.dispatch_handler|my secret words | ERROR|x|boom"
        let redacted = WyomingServerLog.redactingTranscripts(lines, logger: .discarding)
        #expect(!redacted.contains("secret"))
        #expect(redacted.contains("ERROR|x|boom"))
    }
}
