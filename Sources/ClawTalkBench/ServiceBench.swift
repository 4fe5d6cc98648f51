import ClawTalkSupport
import ClawTalkTesting
import Foundation

/// `bench service`: the real service, not its parts. Starts this binary's `clawtalk run` on the
/// loopback rig (microphone `ct_mic.monitor`, speaker `ct_spk`) against an in-process test
/// gateway on loopback, with private config, state and runtime directories, so it supervises its
/// own Whisper server and keyword scorer (on sockets in its private runtime directory) from what
/// scripts/setup installed, and never uses another node's. Then
/// reads `/proc` for the node and each child (CPU seconds, RSS, threads) over a stretch of the
/// rig's silence, one spoken command turn (wake, transcript, reply spoken), and a stretch of
/// continuous non-trigger speech played into the microphone, and counts the wakes that speech
/// caused. The speech phase comes after the turn, so its RSS is the service's after real use.
struct ServiceBench {
    var silenceSeconds: Double
    var speechSeconds: Double
    /// Continuous non-trigger speech, 16 kHz mono (played in a loop for ``speechSeconds``).
    var speech: [Int16]
    /// A spoken command ("computer, what time is it"), 16 kHz mono, played once between the phases.
    var command: [Int16]
    /// The bench's own environment (PATH, XDG_DATA_HOME with the installed servers, the sound server).
    var environment: [String: String]
    var scratch: URL
    var progress: (String) -> Void

    /// What one phase used.
    struct Phase {
        var seconds: Double
        /// CPU seconds by part: `node`, `stt server`, `wake scorer`, `other`.
        var cpu: [String: Double]
        var peakRSS: Double
        var meanRSS: Double
        /// The node and its children (the speech servers) together, at most, MB (10^6 bytes).
        var peakTotalMB: Double
        var threads: Int
    }

    /// What the command turn did.
    struct Turn {
        /// Whether the command woke the service and its reply was spoken.
        var completed: Bool
        /// The node's RSS 5 s after the reply, MiB.
        var rss: Double
        /// The node's and its children's RSS then, MB.
        var totalMB: Double
    }

    /// Runs both phases and returns the metrics.
    func run() async throws -> [BenchMetric] {
        let rig = try LoopbackRig()
        defer { rig.close() }
        await rig.warmUp()
        var configuration = TestGatewayConfiguration()
        configuration.auth = .token("bench")
        configuration.autoApproveLoopback = true
        let gateway = TestGateway(configuration: configuration)
        let url = try await gateway.listen(tls: nil)
        defer { Task { await gateway.stopListening() } }

        // Short names: the node's own sockets live under this home's run/ and a Unix socket path
        // has at most 107 bytes (a full UUID here made the speech server fail to start).
        let home = scratch.appendingPathComponent("service-\(UUID().uuidString.prefix(8))")
        var env = environment
        for (key, name) in [("XDG_CONFIG_HOME", "config"), ("XDG_STATE_HOME", "state"), ("XDG_RUNTIME_DIR", "run")] {
            let path = home.appendingPathComponent(name).path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            env[key] = path
        }
        if env["PULSE_SERVER"] == nil, let runtime = environment["XDG_RUNTIME_DIR"] {
            env["PULSE_SERVER"] = "unix:\(runtime)/pulse/native"
        }
        env["CLAWTALK_GATEWAY_URL"] = url
        env["CLAWTALK_GATEWAY_TOKEN"] = "bench"
        env["CLAWTALK_MIC_DEVICE"] = LoopbackRig.micSource
        env["CLAWTALK_SPEAKER_DEVICE"] = LoopbackRig.speaker
        // No speech server address: the node's own, on its private sockets. (Free ports picked
        // here were once answered by another bench's servers, issue 35.)
        for key in [
            "CLAWTALK_STT_WYOMING_PORT", "CLAWTALK_STT_WYOMING_HOST", "CLAWTALK_WAKE_SCORER_PORT",
            "CLAWTALK_WAKE_SCORER_HOST", "CLAWTALK_STT_WYOMING_SOCKET", "CLAWTALK_WAKE_SCORER_SOCKET",
        ] {
            env[key] = nil
        }
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(home.path)/no-session-bus"
        let log = home.appendingPathComponent("run.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }
        let run = Process()
        run.executableURL = URL(fileURLWithPath: try BenchTool.nodeExecutable())
        // The bench's own speech in a private home: transcripts may be logged, so that a wake the
        // read text caused can be told (printed below).
        run.arguments = ["run", "--log-sensitive"]
        run.environment = env
        run.standardInput = FileHandle.nullDevice
        run.standardOutput = output
        run.standardError = output
        try run.run()
        BenchCleanup.register(run.processIdentifier)
        defer { BenchTool.terminate(run) }
        let sampler = ProcessSampler(pid: run.processIdentifier)
        progress("bench service: clawtalk run started (pid \(run.processIdentifier)); waiting for its servers\n")
        let text = { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        let ready = await BenchTool.wait(seconds: 180, every: .milliseconds(500)) {
            let now = text()
            return BenchTool.speechServersUp(inLog: now)
        }
        guard ready, run.isRunning else {
            throw BenchTool.Failure(description: "clawtalk run did not come up: \(text().suffix(2000))")
        }
        try await Task.sleep(for: .seconds(10))

        progress("bench service: silence for \(Int(silenceSeconds)) s\n")
        let idle = try await measure(sampler, seconds: silenceSeconds)
        progress("bench service: one command turn\n")
        let turn = try await commandTurn(sampler, home: home, log: text)
        let before = text().components(separatedBy: "wake.accepted").count - 1
        progress("bench service: continuous speech for \(Int(speechSeconds)) s\n")
        let clip = home.appendingPathComponent("speech.raw")
        try speech.withUnsafeBytes { try Data($0).write(to: clip) }
        let player = Task.detached { [speechSeconds] in
            let end = ContinuousClock.now + .seconds(speechSeconds)
            while ContinuousClock.now < end, !Task.isCancelled {
                _ = try? BenchTool.run(
                    "pacat",
                    [
                        "-p", "--raw", "--format=s16le", "--rate=16000", "--channels=1", "-d", LoopbackRig.mic,
                        "--client-name=clawtalk-bench-speech", clip.path,
                    ])
            }
        }
        let talking = try await measure(sampler, seconds: speechSeconds)
        player.cancel()
        // SIGKILL: pacat inherits this process's ignored SIGTERM (the stop-signal handling), so a
        // plain pkill left it playing into the next run's microphone.
        _ = try? BenchTool.run("pkill", ["-KILL", "-f", "clawtalk-bench-speech"])
        let wakes = text().components(separatedBy: "wake.accepted").count - 1 - before
        let full = text()
        for line in full.split(separator: "\n") where line.contains("wake.accepted") {
            progress("bench service: \(line)\n")
        }
        let scorer = full.contains("wake.scorer.connected") ? "keyword scorer" : "PocketSphinx (no scorer)"
        return Self.metrics(idle: idle, turn: turn, speech: talking, wakes: wakes, stage1: scorer)
    }

    // MARK: - Private

    /// Plays ``command`` into the microphone and waits (up to 2 min) for its wake and the spoken
    /// reply, then 5 s more, and reads the node's RSS.
    private func commandTurn(_ sampler: ProcessSampler, home: URL, log: () -> String) async throws -> Turn {
        let clip = home.appendingPathComponent("command.raw")
        try command.withUnsafeBytes { try Data($0).write(to: clip) }
        func count(_ event: String) -> Int { log().components(separatedBy: event).count - 1 }
        let (wakes, spoken) = (count("wake.accepted"), count("tts.spoken"))
        _ = try BenchTool.run(
            "pacat",
            [
                "-p", "--raw", "--format=s16le", "--rate=16000", "--channels=1", "-d", LoopbackRig.mic,
                "--client-name=clawtalk-bench-command", clip.path,
            ])
        let completed = await BenchTool.wait(seconds: 120, every: .milliseconds(500)) {
            count("wake.accepted") > wakes && count("tts.spoken") > spoken
        }
        try await Task.sleep(for: .seconds(5))
        guard let reading = sampler.sample() else { throw BenchTool.Failure(description: "clawtalk run exited") }
        return Turn(completed: completed, rss: reading.node.rssMiB, totalMB: Self.totalMB(reading))
    }

    private func measure(_ sampler: ProcessSampler, seconds: Double) async throws -> Phase {
        guard let start = sampler.sample() else { throw BenchTool.Failure(description: "clawtalk run exited") }
        let began = ContinuousClock.now
        var rss: [Double] = [start.node.rssMiB]
        var total = Self.totalMB(start)
        var threads = start.node.threads
        while began.duration(to: .now) < .seconds(seconds) {
            try await Task.sleep(for: .seconds(min(5, seconds)))
            guard let reading = sampler.sample() else { throw BenchTool.Failure(description: "clawtalk run exited") }
            rss.append(reading.node.rssMiB)
            total = max(total, Self.totalMB(reading))
            threads = max(threads, reading.node.threads)
        }
        guard let end = sampler.sample() else { throw BenchTool.Failure(description: "clawtalk run exited") }
        let elapsed = began.duration(to: .now).inSeconds
        var cpu: [String: Double] = ["node": end.node.cpuSeconds - start.node.cpuSeconds]
        for child in end.children {
            let first = start.children.first { $0.pid == child.pid }?.cpuSeconds ?? child.cpuSeconds
            cpu[Self.part(child.name), default: 0] += child.cpuSeconds - first
        }
        return Phase(
            seconds: elapsed, cpu: cpu, peakRSS: rss.max() ?? 0, meanRSS: rss.reduce(0, +) / Double(rss.count),
            peakTotalMB: total, threads: threads)
    }

    /// The RSS of the node and all its children, MB (10^6 bytes, as the goal is stated).
    static func totalMB(_ reading: (node: ProcessSampler.Reading, children: [ProcessSampler.Reading])) -> Double {
        (reading.node.rssMiB + reading.children.reduce(0) { $0 + $1.rssMiB }) * 1.048_576
    }

    static func part(_ name: String) -> String {
        if name.hasPrefix("clawtalk-speech") { return "speech server" }
        if name.hasPrefix("clawtalk-wake") { return "wake scorer" }
        if name.hasPrefix("wyoming-faster") || name.hasPrefix("clawtalk-speech") { return "stt server" }
        return "other"
    }

    static func metrics(idle: Phase, turn: Turn, speech: Phase, wakes: Int, stage1: String) -> [BenchMetric] {
        var metrics: [BenchMetric] = []
        for (name, phase, goal) in [
            ("service.cpu.idle", idle, BenchGoal.serviceIdleCPU), ("service.cpu.speech", speech, .serviceSpeechCPU),
        ] {
            let total = phase.cpu.values.reduce(0, +)
            metrics.append(
                .value(
                    name, condition: "node + servers, \(Int(phase.seconds)) s, \(stage1)", unit: "% of a core",
                    value: total / phase.seconds * 100, goal: goal))
            for part in ["node", "speech server", "stt server", "wake scorer", "other"] {
                guard let seconds = phase.cpu[part] else { continue }
                metrics.append(
                    .value(name, condition: part, unit: "% of a core", value: seconds / phase.seconds * 100))
            }
        }
        metrics.append(
            .value(
                "service.rss.node", condition: "peak: silence, a command turn, speech", unit: "MiB",
                value: max(idle.peakRSS, turn.rss, speech.peakRSS), goal: .serviceRSS))
        metrics.append(.value("service.rss.node", condition: "mean, silence", unit: "MiB", value: idle.meanRSS))
        metrics.append(
            .value(
                "service.rss.total", condition: "node + speech servers, peak in silence", unit: "MB",
                value: idle.peakTotalMB, goal: .serviceTotalRSS))
        // The goal names idle and after a turn; the peak in continuous speech is held to it too.
        if turn.completed {
            metrics.append(
                .value(
                    "service.rss.total", condition: "node + speech servers, 5 s after a command turn", unit: "MB",
                    value: turn.totalMB, goal: .serviceTotalRSS))
        }
        metrics.append(
            .value(
                "service.rss.total", condition: "node + speech servers, peak after a turn and in speech", unit: "MB",
                value: max(turn.totalMB, speech.peakTotalMB), goal: .serviceTotalRSS))
        metrics.append(
            turn.completed
                ? .value("service.rss.node", condition: "5 s after a command turn", unit: "MiB", value: turn.rss)
                : .unmeasured(
                    "service.rss.node", condition: "5 s after a command turn", unit: "MiB",
                    reason: "the spoken command did not wake the service and get a spoken reply within 2 min"))
        metrics.append(.value("service.rss.node", condition: "mean, speech", unit: "MiB", value: speech.meanRSS))
        metrics.append(
            .value(
                "service.threads.node", condition: "most seen", unit: "threads",
                value: Double(max(idle.threads, speech.threads))))
        metrics.append(
            .value(
                "service.wakes.speech", condition: "non-trigger speech, \(Int(speech.seconds)) s", unit: "wakes",
                value: Double(wakes), goal: .selfTrigger))
        return metrics
    }
}
