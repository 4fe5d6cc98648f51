import ClawTalkProtocol
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

/// `clawtalk run` (the built binary) with a Wyoming server installed where `scripts/setup` puts
/// it (the fake one, a Python protocol peer): run starts it, `status` reports it, and it never
/// outlives the service, whether the service stops or is killed.
@Suite("Speech server supervision", .serialized, .timeLimit(.minutes(3)))
struct SpeechServerSupervisionTests {
    /// A private home with the fake server installed, on a free port, recording its pids.
    struct Setup {
        var home: TemporaryHome
        let pidFile: String
        var environment: [String: String]

        init() throws {
            home = try TemporaryHome()
            home.sttPort = closedLoopbackPort()  // free now: the supervised server binds it
            try FakeWhisperInstall.install(dataDirectory: home.data)
            pidFile = home.root + "/whisper-pids"
            environment = home.environment
            environment["FAKE_WHISPER_PIDFILE"] = pidFile
            environment["CLAWTALK_WAKE_ENABLED"] = "false"
        }

        var pids: [Int32] {
            ((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                Int32($0)
            }
        }
    }

    /// Alive and not a zombie.
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.range(of: ") ", options: .backwards)
        else { return false }
        return stat[end.upperBound...].first != "Z"
    }

    static func gone(_ pid: Int32) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while isAlive(pid), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return !isAlive(pid)
    }

    @Test func runStartsTheInstalledServerReportsItAndStopsItOnSIGTERM() async throws {
        let setup = try Setup()
        defer { setup.home.remove() }
        let run = try RunningBinary(["run"], environment: setup.environment)
        defer { run.kill() }
        #expect(await run.waitForOutput("stt.server.ready", timeout: .seconds(60)), "\(run.stderr)")
        let pid = try #require(setup.pids.first)
        #expect(Self.isAlive(pid))
        #expect(run.stderr.contains("stt.server.log line=Ready"), "\(run.stderr)")
        #expect(
            await run.waitUntil {
                let server = EndToEnd.status(setup.home)?["speechServer"] as? [String: Any]
                return server?["role"] as? String == "supervised" && server?["ready"] as? Bool == true
            }, "\(String(describing: EndToEnd.status(setup.home)))")
        let status = try await ClawTalkBinary.run(["status"], environment: setup.environment)
        #expect(
            status.output.split(separator: "\n").contains {
                $0.hasPrefix("stt server:")
                    && $0.hasSuffix(" supervised, ready (pid \(pid)) at 127.0.0.1:\(setup.home.sttPort ?? 0)")
            },
            "\(status.output)")

        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0, "\(run.stderr)")
        #expect(await Self.gone(pid), "the supervised server outlived the service")
        #expect(setup.pids == [pid], "one server, never restarted")
    }

    /// PR_SET_PDEATHSIG: a service killed outright (or crashed) takes its server with it.
    @Test func aKilledServiceLeavesNoServerBehind() async throws {
        let setup = try Setup()
        defer { setup.home.remove() }
        let run = try RunningBinary(["run"], environment: setup.environment)
        defer { run.kill() }
        #expect(await run.waitForOutput("stt.server.ready", timeout: .seconds(60)), "\(run.stderr)")
        let pid = try #require(setup.pids.first)
        run.send(SIGKILL)
        _ = await run.waitForExit()
        #expect(await Self.gone(pid), "the supervised server outlived a killed service")
    }

    /// A server that already answers (the user's own unit) is used; nothing is started.
    @Test func aRunningServerIsUsedAsItIs() async throws {
        let setup = try Setup()
        defer { setup.home.remove() }
        let port = try #require(setup.home.sttPort)
        let external = Process()
        external.executableURL = URL(fileURLWithPath: setup.home.data + "/clawtalk/venv/bin/wyoming-faster-whisper")
        external.arguments = ["--uri", "tcp://127.0.0.1:\(port)"]
        external.standardOutput = FileHandle.nullDevice
        external.standardError = FileHandle.nullDevice
        try external.run()
        // SIGKILL: the test process may ignore SIGTERM, and a Process child inherits that.
        defer { kill(external.processIdentifier, SIGKILL) }
        // Started only once the external server listens: before that, run would start its own,
        // which could bind first and leave the external one to die on a taken port (seen in CI).
        _ = await eventually(within: .seconds(60), every: .milliseconds(20)) {
            loopbackPortAccepts(port) || !external.isRunning
        }
        try #require(loopbackPortAccepts(port), "the external server never listened")
        let run = try RunningBinary(["run"], environment: setup.environment)
        defer { run.kill() }
        #expect(await run.waitForOutput("stt.server.external", timeout: .seconds(60)), "\(run.stderr)")
        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
        #expect(external.isRunning, "someone else's server is left alone")
    }
}

/// Issue 12's promise, on the audio rig with the real installed Whisper: `clawtalk run` started
/// with no server running starts its own and answers a gateway's `talk.ptt.once` with a Whisper
/// transcript; after SIGTERM no server remains.
@Suite(
    "Supervised Whisper answers push-to-talk (audio rig)", .serialized, .audioRig, .timeLimit(.minutes(5)),
    .needsAudioRig,
    .enabled(
        if: XDGPathsForTests.installedWhisper != nil,
        "needs the Whisper server of scripts/setup"))
struct SupervisedWhisperRigTests {
    @Test func talkPTTOnceIsAnsweredWithAWhisperTranscript() async throws {
        let installed = try #require(XDGPathsForTests.installedWhisper)
        var home = try TemporaryHome()
        home.sttPort = nil  // run's own server on its private socket: nothing of the user's answers there
        defer { home.remove() }
        // The private data directory points at the installed server and model (read only).
        try home.linkInstalledServers(from: installed)
        let directory = try TempDirectory(prefix: "ptt-whisper")
        let clip = try SpokenClip.wav(
            "please set a timer for ten minutes", padBefore: 0.3, padAfter: 1.5, in: directory)
        let (gateway, nodeEnvironment) = try await EndToEnd.nodeOnlyGateway(for: home)
        defer { Task { await gateway.stopListening() } }
        var environment = nodeEnvironment
        environment["CLAWTALK_WAKE_ENABLED"] = "false"
        let run = try RunningBinary(["run", "--log-sensitive"], environment: environment)
        defer { run.kill() }
        let connection = try await EndToEnd.connected(gateway)
        let session = try #require(await gateway.session(connection: connection))
        #expect(await run.waitForOutput("stt.server.ready", timeout: .seconds(120)), "\(run.stderr)")

        let once = Task {
            await gateway.invoke(
                nodeId: session.deviceId, command: "talk.ptt.once", params: .json("{}"), timeoutMs: 60_000,
                bypassPolicy: true)
        }
        #expect(await run.waitForOutput("ptt.capture.open", timeout: .seconds(30)), "\(run.stderr)")
        try runTool("paplay", ["-d", "vspk", clip])
        let outcome = await once.value
        guard case .ok(let payloadJSON?, _) = outcome else {
            Issue.record("talk.ptt.once: \(outcome)\n\(run.stderr)")
            return
        }
        let payload = try #require(try WireJSON(parsing: payloadJSON).objectValue)
        let transcript = try #require(payload["transcript"]?.stringValue, "\(payload)")
        #expect(!transcript.isEmpty, "\(payload)")
        // The log line may follow the answer on the wire: wait for it.
        #expect(await run.waitForOutput("ptt.transcribed", timeout: .seconds(30)), "\(run.stderr)")
        #expect(run.stderr.contains("engine=wyoming"), "\(run.stderr)")
        let pid = try #require(
            (EndToEnd.status(home)?["speechServer"] as? [String: Any])?["pid"] as? Int, "\(run.stderr)")

        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
        #expect(await SpeechServerSupervisionTests.gone(Int32(pid)), "the Whisper server outlived the service")
    }
}

/// The test user's real XDG data directory (only read, to find what scripts/setup installed).
enum XDGPathsForTests {
    static var dataHome: String {
        let environment = ProcessInfo.processInfo.environment
        return environment["XDG_DATA_HOME"] ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
    }

    /// The user's data directory with the venv and the model, when scripts/setup ran.
    static var installedWhisper: String? {
        let venv = dataHome + "/clawtalk/venv/bin/wyoming-faster-whisper"
        let model = dataHome + "/clawtalk/models/whisper-base/model.bin"
        return FileManager.default.isExecutableFile(atPath: venv) && FileManager.default.fileExists(atPath: model)
            ? dataHome : nil
    }
}
