import ClawTalkDevices
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation

extension SoakBench {
    /// Starts the sound server, the rig, the TLS gateway and `clawtalk run`, and waits until the
    /// node is connected and its servers are up.
    func start() async throws -> Rig {
        let home = scratch.appendingPathComponent("soak-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let sound = try SoakSoundServer(scratch: home)
        let loopback = try LoopbackRig()
        await loopback.warmUp()
        let (tls, pin) = try Self.certificate(in: home)
        var configuration = TestGatewayConfiguration()
        configuration.auth = .token("soak")
        configuration.autoApproveLoopback = true
        configuration.requireCapabilityApproval = false
        configuration.policy.tickIntervalMs = 5_000
        // No bench reads the audio back from the traffic log; kept, it grew by 600 MB in 40 min
        // of realtime Talk.
        configuration.recordsAudio = false
        var script = OperatorScript()
        if let chatReply {
            script.chatRun = [.final(chatReply)]
            configuration.methods.removeAll { ["talk.speak", "tts.speak"].contains($0) }
        }
        if let realtime {
            var config = script.talkConfig.objectValue ?? [:]
            var talk = config["talk"]?.objectValue ?? [:]
            talk["realtime"] = ["mode": "realtime", "transport": "gateway-relay", "voice": "test-voice"]
            config["talk"] = .object(talk)
            script.talkConfig = .object(config)
            script.realtime = realtime
        }
        let gateway = TestGateway(configuration: configuration, script: script)
        let url = try await gateway.listen(tls: tls)
        guard let port = URLComponents(string: url)?.port else {
            throw BenchTool.Failure(description: "the gateway's URL has no port: \(url)")
        }

        var env = environment
        for (key, name) in [("XDG_CONFIG_HOME", "config"), ("XDG_STATE_HOME", "state"), ("XDG_RUNTIME_DIR", "run")] {
            let path = home.appendingPathComponent(name).path
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            env[key] = path
        }
        env["PULSE_SERVER"] = sound.address
        env["CLAWTALK_GATEWAY_URL"] = url
        env["CLAWTALK_GATEWAY_TOKEN"] = "soak"
        env["CLAWTALK_GATEWAY_TLS_FINGERPRINT"] = "sha256:\(pin)"
        env["CLAWTALK_MIC_DEVICE"] = LoopbackRig.micSource
        env["CLAWTALK_SPEAKER_DEVICE"] = LoopbackRig.speaker
        // No speech server address: the node's own servers on sockets in its private runtime
        // directory, never another node's (issue 35).
        env["CLAWTALK_STT_WYOMING_PORT"] = nil
        env["CLAWTALK_WAKE_SCORER_PORT"] = nil
        if realtime != nil { env["CLAWTALK_TALK_REALTIME_RELAY"] = "true" }
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(home.path)/no-session-bus"
        let log = home.appendingPathComponent("run.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let rig = Rig(
            sound: sound, loopback: loopback, gateway: gateway, port: port, tls: tls, home: home, log: log,
            run: Process(), environment: env)
        try await launch(rig)
        return rig
    }

    /// Starts `clawtalk run` (again) and waits for its connections and servers.
    func launch(_ rig: Rig) async throws {
        let output = try FileHandle(forWritingTo: rig.log)
        output.seekToEndOfFile()
        defer { try? output.close() }
        let run = Process()
        run.executableURL = URL(fileURLWithPath: try BenchTool.nodeExecutable())
        run.arguments = ["run", "--log-sensitive"]
        run.environment = rig.environment
        run.standardInput = FileHandle.nullDevice
        run.standardOutput = output
        run.standardError = output
        try run.run()
        BenchCleanup.register(run.processIdentifier)
        rig.run = run
        progress("bench soak: clawtalk run started (pid \(run.processIdentifier)); waiting for it to connect\n")
        do {
            try await waitConnected(rig)
            let ready = await BenchTool.wait(seconds: 180) { BenchTool.speechServersUp(inLog: rig.text) }
            guard ready, run.isRunning else {
                throw BenchTool.Failure(description: "clawtalk run did not come up: \(rig.text.suffix(2000))")
            }
        } catch {
            // A node that never came up is stopped here: the caller has no rig to stop (one such
            // node, and its wake server, ran on for two hours after a failed `bench turn`).
            BenchTool.terminate(run)
            throw error
        }
    }

    /// Starts the node again after it ended by itself (a crash).
    func restart(_ rig: Rig) async throws {
        rig.restarts += 1
        try await launch(rig)
    }

    /// Stops the node (SIGTERM, then SIGKILL after 10 s), the gateway, the rig and the sound server.
    static func stop(_ rig: Rig) {
        BenchTool.terminate(rig.run)
        _ = try? BenchTool.run("pkill", ["-KILL", "-f", "clawtalk-soak-speech"])
        let gateway = rig.gateway
        // Unstructured on purpose: a synchronous teardown that does not wait for the listener.
        Task { await gateway.stopListening() }
        rig.loopback.close()
        rig.sound.stop()
    }

    /// The bench's user on the rig: a recorder of the speaker monitor (started) and a player into
    /// the microphone. The caller closes both (`harness.close()`, `monitor.stop()`).
    static func user() throws -> (monitor: MonitorRecorder, harness: PlaybackController) {
        let monitor = MonitorRecorder()
        try monitor.start()
        let harness = PlaybackController(
            sink: LoopbackRig.mic,
            settings: PlaybackSettings(targetLatencyMilliseconds: 20, streamName: "clawtalk bench user"))
        return (monitor, harness)
    }

    /// A self-signed certificate for 127.0.0.1 in `folder`, and its SHA-256 pin (hex).
    static func certificate(in folder: URL) throws -> ((certificatePath: String, keyPath: String), String) {
        let certificate = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        _ = try BenchTool.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj",
                "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-days", "2", "-keyout", key,
                "-out", certificate,
            ])
        let der = folder.appendingPathComponent("cert.der").path
        _ = try BenchTool.run("openssl", ["x509", "-in", certificate, "-outform", "DER", "-out", der])
        let digest = try BenchTool.run("sha256sum", [der])
        return ((certificate, key), String(digest.prefix(64)))
    }
}
