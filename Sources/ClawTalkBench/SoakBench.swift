import ClawTalkNode
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation

/// `bench soak`: the real `clawtalk run` for a long stretch with faults coming in (issue 16).
///
/// The binary runs as a user would run it, against an in-process test gateway over TLS on
/// loopback (pinned certificate), with its own supervised Whisper server and keyword scorer, on a
/// private PulseAudio that the soak owns (so that it may restart it). Each cycle, about a minute:
/// a wake command spoken into the microphone, a `talk.ptt.once` question, a Talk-mode exchange,
/// then the next fault of ``SoakFault`` in rotation. Between steps it reads `/proc` for the
/// node's RSS, open descriptors, threads and CPU. The report: every utterance delivered exactly
/// once, replies heard, crashes, the resource trend after warm-up and CPU per phase.
struct SoakBench {
    var minutes: Double
    /// The faults to rotate through (default: all of them).
    var faults: [SoakFault] = SoakFault.allCases
    /// Where to keep the node's log (the soak's folder is removed at the end), or nil.
    var keepLog: URL?
    /// Spoken phrases by keyword: `command` ("computer … tell me a story about dragons") and
    /// `question` (the same without the trigger), 16 kHz mono.
    var phrases: [(keyword: String, command: [Int16], question: [Int16])]
    var environment: [String: String]
    var scratch: URL
    var progress: (String) -> Void
    /// What the gateway answers every `chat.send` with, spoken by the node with espeak-ng (no
    /// gateway speech); nil keeps the test gateway's default run and its `talk.speak` clip.
    var chatReply: String?
    /// The emulated realtime provider, with `talk.realtime` asking for the gateway relay and the
    /// node opted in (`CLAWTALK_TALK_REALTIME_RELAY`); nil: native Talk.
    var realtime: TestRealtimeScript?

    /// The utterances' keywords (matched as word prefixes) and their sentences: long, common
    /// nouns that Whisper writes one way from espeak-ng's voice (country names after "the capital
    /// of" came back as "and friends" or "I'm paying", "volcanoes" as "Malcanoes", "bicycles" as
    /// "my sickles"). A misheard delivery is reported as misheard, not as lost.
    static let phrases: [(keyword: String, sentence: String)] = [
        "elephant", "dinosaur", "rocket", "penguin", "rainbow", "guitar", "mountain", "astronaut", "pirate",
        "dragon", "robot", "chocolate",
    ].map { ($0, "tell me a story about \($0 == "chocolate" ? $0 : $0 + "s")") }

    /// Seconds of warm-up left out of the growth figures.
    static let warmUpSeconds = 300.0

    /// The running soak's moving parts (one per run).
    final class Rig {
        let sound: SoakSoundServer
        var loopback: LoopbackRig
        let gateway: TestGateway
        let port: Int
        let tls: (certificatePath: String, keyPath: String)
        let home: URL
        let log: URL
        var run: Process
        var environment: [String: String]
        var restarts = 0

        init(
            sound: SoakSoundServer, loopback: LoopbackRig, gateway: TestGateway, port: Int,
            tls: (certificatePath: String, keyPath: String), home: URL, log: URL, run: Process,
            environment: [String: String]
        ) {
            self.sound = sound
            self.loopback = loopback
            self.gateway = gateway
            self.port = port
            self.tls = tls
            self.home = home
            self.log = log
            self.run = run
            self.environment = environment
        }

        /// The node's log so far.
        var text: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        /// How often `event` appears in the log.
        func count(_ event: String) -> Int { text.components(separatedBy: event).count - 1 }
    }

    /// One reading of the node.
    struct Sample {
        var seconds: Double
        var rss: Double
        var descriptors: Int
        var threads: Int
        /// CPU seconds of the node itself.
        var nodeCPU: Double
        /// CPU seconds of each server (child) by pid.
        var childCPU: [Int32: Double]

        /// CPU seconds the node and its servers used since `earlier`: a server started since
        /// counts from zero, one that ended since counts no more (a killed Whisper server's
        /// seconds do not make the figure negative).
        func cpu(since earlier: Sample) -> Double {
            nodeCPU - earlier.nodeCPU + childCPU.map { $0.value - (earlier.childCPU[$0.key] ?? 0) }.reduce(0, +)
        }
    }

    /// Runs the soak; returns the metrics.
    func run() async throws -> [BenchMetric] {
        let rig = try await start()
        defer {
            Self.stop(rig)
            if let keepLog {
                try? FileManager.default.createDirectory(
                    at: keepLog.deletingLastPathComponent(), withIntermediateDirectories: true)
                try? FileManager.default.removeItem(at: keepLog)
                try? FileManager.default.copyItem(at: rig.log, to: keepLog)
            }
        }
        let began = ContinuousClock.now
        let elapsed = { began.duration(to: .now).inSeconds }
        var ledger = SoakLedger()
        var samples: [Sample] = []
        var cpuByPhase: [String: (cpu: Double, seconds: Double, rss: Double)] = [:]
        var recoveries: [SoakFault: [Double?]] = [:]
        var crashes: [String] = []
        var aborted: String?
        var keyword = 0
        var cycle = 0

        /// Runs one step, charging its CPU and time to `phase`, and notes a crash.
        func step(_ phase: String, _ body: () async throws -> Void) async throws {
            let before = Self.sample(rig, at: elapsed())
            let start = elapsed()
            try await body()
            if !rig.run.isRunning {
                crashes.append("\(phase): exit \(rig.run.terminationStatus) (\(rig.run.terminationReason))")
                progress("bench soak: clawtalk run ended during \(phase); starting it again\n")
                try await restart(rig)
                return
            }
            guard let after = Self.sample(rig, at: elapsed()) else { return }
            samples.append(after)
            guard let before else { return }
            cpuByPhase[phase, default: (0, 0, 0)].cpu += after.cpu(since: before)
            cpuByPhase[phase, default: (0, 0, 0)].seconds += elapsed() - start
            cpuByPhase[phase, default: (0, 0, 0)].rss += after.rss - before.rss
        }

        if let first = Self.sample(rig, at: elapsed()) { samples.append(first) }
        do {
            while elapsed() < minutes * 60 {
                for kind in SoakLedger.Kind.allCases {
                    let phrase = phrases[keyword % phrases.count]
                    keyword += 1
                    try await step(kind.rawValue) {
                        try await say(kind, phrase, rig: rig, ledger: &ledger)
                    }
                }
                let fault = faults[cycle % faults.count]
                cycle += 1
                progress("bench soak: \(Int(elapsed() / 60)) min: \(fault.rawValue)\n")
                try await step("fault: \(fault.rawValue)") {
                    recoveries[fault, default: []].append(try await inject(fault, rig: rig))
                }
            }
        } catch {
            // What was measured until then is still reported, with the reason the soak stopped.
            aborted = "stopped after \(Int(elapsed() / 60)) min: \(error)"
            progress("bench soak: \(aborted ?? "")\n")
        }
        let messages = await Self.messages(rig.gateway)
        return metrics(
            ledger: ledger, messages: messages, samples: samples, cpu: cpuByPhase, recoveries: recoveries,
            crashes: crashes, aborted: aborted, seconds: elapsed(), heap: HeapReport.readings(inLog: rig.text))
    }

    // MARK: - Utterances

    /// Says one utterance of `kind` and waits (≤ 60 s) for its delivery and, where one comes, its
    /// spoken reply.
    private func say(
        _ kind: SoakLedger.Kind, _ phrase: (keyword: String, command: [Int16], question: [Int16]), rig: Rig,
        ledger: inout SoakLedger
    ) async throws {
        try await waitConnected(rig)
        let spoken = rig.count("tts.spoken")
        let index = ledger.said(kind, keyword: phrase.keyword, messages: await Self.messages(rig.gateway).count)
        switch kind {
        case .wake:
            try play(phrase.command, rig: rig)
        case .pttOnce:
            let nodeId = try await nodeId(rig)
            let gateway = rig.gateway
            async let result = gateway.invoke(
                nodeId: nodeId, command: "talk.ptt.once", params: .json("{}"), timeoutMs: 60_000)
            try await Task.sleep(for: .milliseconds(1500))
            try play(phrase.question, rig: rig)
            _ = await result
        case .talk:
            try control(["talk", "on"], rig: rig)
            try await Task.sleep(for: .milliseconds(1000))
            try play(phrase.question, rig: rig)
        }
        let first = ledger.utterances[index].firstMessage
        let carried = await BenchTool.wait(seconds: 60) {
            await Self.messages(rig.gateway)[first...].contains { SoakLedger.carries($0, phrase.keyword) }
        }
        if kind != .pttOnce {
            // A question that speech-to-text misheard (the keyword lost) still reached the gateway
            // and gets its reply: that reply counts too (the ledger reports the mishearing).
            let arrived = await Self.messages(rig.gateway).count > first
            let delivered = carried || arrived
            let heard = await BenchTool.wait(seconds: 60) { rig.count("tts.spoken") > spoken }
            ledger.reply(index, heard: delivered && heard)
        }
        if kind == .talk { try control(["talk", "off"], rig: rig) }
        try await Task.sleep(for: .seconds(2))
    }

    /// Plays `samples` into the node's microphone and returns when they have been played.
    private func play(_ samples: [Int16], rig: Rig) throws {
        let clip = rig.home.appendingPathComponent("utterance.raw")
        try samples.withUnsafeBytes { try Data($0).write(to: clip) }
        _ = try? BenchTool.run(
            "pacat",
            [
                "-p", "--raw", "--format=s16le", "--rate=16000", "--channels=1", "-d", LoopbackRig.mic,
                "--client-name=clawtalk-soak-speech", clip.path,
            ])
    }

    /// Runs `clawtalk <arguments>` against the node (its control socket), as a user's keybinding does.
    func control(_ arguments: [String], rig: Rig) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BenchTool.nodeExecutable())
        process.arguments = arguments
        process.environment = rig.environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
    }

    /// Commands and transcripts that reached the gateway, in order (a `talk.ptt.once` result
    /// carries its transcript too, but the command reaches the agent as its `chat.send`).
    static func messages(_ gateway: TestGateway) async -> [String] {
        await gateway.observedEvents.compactMap { event -> String? in
            switch event {
            case .operatorCall(_, "chat.send", let params): params?["message"]?.stringValue
            case .nodeEvent(_, "voice.transcript", let payload): payload?["text"]?.stringValue
            default: nil
            }
        }
    }

    // MARK: - Resources

    /// The node's RSS, descriptors, threads and its and its servers' CPU; nil when it is gone.
    static func sample(_ rig: Rig, at seconds: Double) -> Sample? {
        guard let reading = ProcessSampler(pid: rig.run.processIdentifier).sample() else { return nil }
        let descriptors =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(rig.run.processIdentifier)/fd"))?.count ?? 0
        return Sample(
            seconds: seconds, rss: reading.node.rssMiB, descriptors: descriptors, threads: reading.node.threads,
            nodeCPU: reading.node.cpuSeconds,
            childCPU: Dictionary(reading.children.map { ($0.pid, $0.cpuSeconds) }, uniquingKeysWith: +))
    }
}
