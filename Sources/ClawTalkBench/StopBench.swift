import ClawTalkAudio
import ClawTalkDevices
import ClawTalkTesting
import Foundation

/// `bench stop` (issue 35 item 4): how long the real `clawtalk run` takes to exit after SIGTERM
/// at a moment when it is busy, and whether its speech server ends with it.
///
/// One rig for all runs (``SoakBench``'s private sound server, loopback devices and TLS test
/// gateway); each run starts a fresh `clawtalk run` with its own speech server, waits until it is
/// connected and its servers are up, drives it to the moment and sends SIGTERM:
/// - ``Moment/transcription``: `talk.ptt.start`, an utterance into the microphone,
///   `talk.ptt.stop` at its end; SIGTERM ``lead`` after the node logs `ptt.capture.finished`
///   (the request to its speech server is then in flight). The run counts only when the log
///   has no `ptt.transcribed` before `service.stopping`.
/// - ``Moment/playback``: the gateway's next `talk.speak` answers with an 8 s clip; a
///   `talk.ptt.once` question; SIGTERM ``lead`` after the node logs the decoded clip
///   (`tts.clip`). The run counts only when no `tts.spoken` came before `service.stopping`.
///
/// Timed: SIGTERM → the process has exited (polled every millisecond), and when the last of its
/// descendants (the speech server) was gone.
struct StopBench {
    /// When the stop comes.
    enum Moment: String, CaseIterable, Sendable {
        /// A push-to-talk utterance being transcribed by the node's own speech server.
        case transcription
        /// A reply clip from the gateway (`talk.speak`) playing.
        case playback

        /// `stop.<moment>`.
        var metric: String { "stop.\(rawValue)" }

        /// What is timed, for the report.
        var label: String {
            switch self {
            case .transcription:
                "clawtalk run, SIGTERM while its speech server transcribes a talk.ptt.stop utterance: "
                    + "SIGTERM → exit"
            case .playback:
                "clawtalk run, SIGTERM 1 s into an 8 s talk.speak reply clip: SIGTERM → exit"
            }
        }

        /// From the node's log event that marks the moment to SIGTERM.
        var lead: Duration { self == .transcription ? .milliseconds(50) : .seconds(1) }
    }

    /// What one run measured.
    struct Run: Sendable {
        /// SIGTERM → exit, ms (nil: it had not exited after 10 s and was killed).
        var exitMs: Double?
        /// The exit status.
        var status: Int32
        /// SIGTERM → the last descendant gone, ms (nil: none, or one still there after 2 s).
        var childrenGoneMs: Double?
        /// Descendants at SIGTERM (pid, name).
        var children: [String]
        /// Descendants still alive 2 s after the exit.
        var orphans: [String]
        /// The moment was still going on at SIGTERM (from the node's log).
        var inMoment: Bool
        /// The speech server's CPU time in the `lead` before SIGTERM, ms.
        var serverBusyMs: Double?
        /// `/proc/loadavg` at SIGTERM.
        var load: String
        /// What the log says happened to the work in flight.
        var note: String
        /// SIGTERM → the node's `service.stopping`, `service.stopped` and `service.released`
        /// lines, ms (wall clock, the log's millisecond stamps): where a slow stop's time went.
        var marks: [String: Double] = [:]
    }

    /// Issue 35: every stop ≤ 500 ms.
    static let goal = BenchGoal(value: 500)
    /// The reply clip of ``Moment/playback``.
    static let playbackClipMs = 8_000

    var moment: Moment
    var runs: Int
    /// Utterances, used in rotation.
    var clips: [TurnCorpus.Clip]
    /// The bench's own environment (PATH, XDG_DATA_HOME with the installed servers).
    var environment: [String: String]
    /// Where the rig's private folders go.
    var scratch: URL
    /// Where each run's node log is kept (`stop-<moment>-NN.log`), or nil.
    var keep: URL?
    /// Progress lines (stderr).
    var progress: (String) -> Void

    /// Runs ``runs`` stops; returns the metrics.
    func run() async throws -> [BenchMetric] {
        var env = environment
        env["CLAWTALK_LOG_LEVEL"] = "debug"
        let soak = SoakBench(minutes: 0, phrases: [], environment: env, scratch: scratch, progress: progress)
        let rig = try await soak.start()
        defer { Self.close(rig) }
        let harness = PlaybackController(
            sink: LoopbackRig.mic,
            settings: PlaybackSettings(targetLatencyMilliseconds: 20, streamName: "clawtalk bench user"))
        defer { harness.close() }
        let stage = TurnStage(rig: rig, soak: soak, harness: harness, log: BargeInLog(file: rig.log))
        var results: [Run] = []
        var failures: [String] = []
        for index in 0..<runs {
            do {
                if index > 0 {
                    _ = FileManager.default.createFile(atPath: rig.log.path, contents: nil)
                    try await soak.launch(rig)
                }
                try await Task.sleep(for: .seconds(2))
                let result = try await once(index, stage)
                results.append(result)
                progress(Self.line(index, result) + "\n")
            } catch {
                failures.append("run \(index + 1): \(error)")
                progress("bench stop: run \(index + 1) failed: \(error)\n")
                BenchTool.terminate(rig.run)
            }
            if let keep {
                let name = String(format: "stop-%@-%02d.log", moment.rawValue, index + 1)
                let target = keep.appendingPathComponent(name)
                try? FileManager.default.removeItem(at: target)
                try? FileManager.default.copyItem(at: rig.log, to: target)
            }
        }
        return Self.metrics(moment, results, failures: failures)
    }

    /// One run on the running node: drive it to the moment, SIGTERM, time the exit.
    private func once(_ index: Int, _ stage: TurnStage) async throws -> Run {
        try await stage.soak.waitConnected(stage.rig)
        let clip = clips[index % clips.count]
        switch moment {
        case .transcription:
            let started = stage.captures
            _ = try await stage.invoke("talk.ptt.start", timeoutMs: 10_000)
            guard await stage.waitCaptureStarted(after: started) else {
                throw BenchTool.Failure(description: "talk.ptt.start did not start a capture")
            }
            // Up to the last loud sample, so that the stop follows the speech at once and no
            // transcription of a pause can stand for the capture.
            let speech = LoopbackBench.speechBounds(clip.samples)?.end ?? clip.samples.count
            guard let end = await stage.play(Array(clip.samples[..<speech])) else {
                throw BenchTool.Failure(description: "the utterance did not play")
            }
            try await Task.sleep(until: end)
            let finished = stage.rig.count("ptt.capture.finished")
            let (gateway, nodeId) = (stage.rig.gateway, try await stage.soak.nodeId(stage.rig))
            async let stop = gateway.invoke(
                nodeId: nodeId, command: "talk.ptt.stop", params: .json("{}"), timeoutMs: 30_000)
            let reached = await BenchTool.wait(seconds: 10, every: .milliseconds(2)) {
                stage.rig.count("ptt.capture.finished") > finished
            }
            guard reached else { throw BenchTool.Failure(description: "talk.ptt.stop did not finish the capture") }
            let run = try await terminate(stage.rig)
            _ = await stop
            return run
        case .playback:
            await stage.rig.gateway.enqueueReply(
                .clip(.pcm24000(durationMs: Self.playbackClipMs)), for: "talk.speak")
            let decoded = stage.rig.count("tts.clip")
            let started = stage.captures
            let (gateway, nodeId) = (stage.rig.gateway, try await stage.soak.nodeId(stage.rig))
            async let question = gateway.invoke(
                nodeId: nodeId, command: "talk.ptt.once", params: .json("{}"), timeoutMs: 30_000)
            guard await stage.waitCaptureStarted(after: started) else {
                _ = await question
                throw BenchTool.Failure(description: "talk.ptt.once did not start a capture")
            }
            _ = await stage.play(clip.samples)
            _ = await question
            let reached = await BenchTool.wait(seconds: 20, every: .milliseconds(5)) {
                stage.rig.count("tts.clip") > decoded
            }
            guard reached else { throw BenchTool.Failure(description: "no reply clip was decoded") }
            return try await terminate(stage.rig)
        }
    }

    /// Waits ``Moment/lead``, sends SIGTERM, times the exit and the descendants' end.
    private func terminate(_ rig: SoakBench.Rig) async throws -> Run {
        let node = rig.run
        let pid = node.processIdentifier
        let before = Self.serverCPU(of: pid)
        try await Task.sleep(for: moment.lead)
        let children = Self.descendants(of: pid)
        let busy = before.flatMap { earlier in Self.serverCPU(of: pid).map { ($0 - earlier) * 1000 } }
        let load = TurnStage.load()
        let sentAt = Date()
        let sent = ContinuousClock.now
        kill(pid, SIGTERM)
        // The node and its descendants, polled together: a server the node stops ends before it.
        var goneMs: Double?
        func noteGone() {
            guard goneMs == nil, children.allSatisfy({ !$0.isAlive }) else { return }
            goneMs = BenchClock.ms(ContinuousClock.now - sent)
        }
        // Exited when it is a zombie (or reaped): Foundation's reaping of the child, which
        // `isRunning` waits for, can lag on a busy machine.
        let process = Descendant(pid: pid, name: "clawtalk", started: Descendant.stat(pid)?.started ?? "")
        while process.isAlive, node.isRunning, ContinuousClock.now - sent < .seconds(10) {
            noteGone()
            usleep(1_000)
        }
        var exitMs: Double? = BenchClock.ms(ContinuousClock.now - sent)
        if process.isAlive, node.isRunning {
            exitMs = nil
            kill(pid, SIGKILL)
        }
        node.waitUntilExit()
        BenchCleanup.unregister(pid)
        let exited = ContinuousClock.now
        while goneMs == nil, ContinuousClock.now - exited < .seconds(2) {
            noteGone()
            if goneMs == nil { usleep(1_000) }
        }
        let orphans = children.filter(\.isAlive)
        let text = rig.text
        return Run(
            exitMs: exitMs, status: node.terminationStatus, childrenGoneMs: children.isEmpty ? nil : goneMs,
            children: children.map(\.label), orphans: orphans.map(\.label),
            inMoment: Self.inMoment(moment, log: text), serverBusyMs: busy, load: load,
            note: Self.note(moment, log: text), marks: Self.marks(log: text, since: sentAt))
    }

    // MARK: - The node's log

    /// Whether the moment was still going on when the stop began: no `ptt.transcribed`
    /// (transcription) or `tts.spoken` (playback) between the moment's start and `service.stopping`.
    static func inMoment(_ moment: Moment, log: String) -> Bool {
        let (start, end) =
            moment == .transcription ? ("ptt.capture.finished", "ptt.transcribed") : ("tts.clip", "tts.spoken")
        let lines = log.split(separator: "\n")
        guard let stopping = lines.firstIndex(where: { $0.contains(" service.stopping") }),
            let began = lines[..<stopping].lastIndex(where: { $0.contains(" \(start) ") || $0.hasSuffix(" \(start)") })
        else { return false }
        return !lines[began..<stopping].contains { $0.contains(" \(end) ") || $0.hasSuffix(" \(end)") }
    }

    /// The node's own account of the work it was doing: the lines after `service.stopping` that
    /// name the capture or the speech (their event names), or "nothing logged".
    static func note(_ moment: Moment, log: String) -> String {
        let lines = log.split(separator: "\n")
        guard let stopping = lines.firstIndex(where: { $0.contains(" service.stopping") }) else {
            return "no stop logged"
        }
        let prefix = moment == .transcription ? "ptt." : "tts."
        let events = lines[stopping...].compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard words.count > 3, words[3].hasPrefix(prefix) || words[3].hasPrefix("service.") else { return nil }
            return String(words[3])
        }
        return events.isEmpty ? "nothing logged" : events.joined(separator: ", ")
    }

    /// Milliseconds from `sent` to the first `service.stopping`, `service.stopped` and
    /// `service.released` line after it (by their ISO 8601 stamps).
    static func marks(log: String, since sent: Date) -> [String: Double] {
        let stamps = ISO8601DateFormatter()
        stamps.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var marks: [String: Double] = [:]
        for line in log.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count > 3, ["service.stopping", "service.stopped", "service.released"].contains(words[3]),
                marks[String(words[3])] == nil, let at = stamps.date(from: String(words[0])),
                at >= sent.addingTimeInterval(-0.001)
            else { continue }
            marks[String(words[3])] = at.timeIntervalSince(sent) * 1000
        }
        return marks
    }

    // MARK: - Processes

    /// A process seen at SIGTERM: its pid and start time (so a reused pid is not taken for it).
    struct Descendant: Sendable {
        var pid: Int32
        var name: String
        var started: String

        /// Still there and not a zombie.
        var isAlive: Bool {
            guard let stat = Self.stat(pid) else { return false }
            return stat.started == started && stat.state != "Z"
        }

        /// `name[pid]`.
        var label: String { "\(name)[\(pid)]" }

        /// The state letter and start time (field 22) of `pid`.
        static func stat(_ pid: Int32) -> (state: String, started: String)? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 19 else { return nil }
            return (String(fields[0]), String(fields[19]))
        }
    }

    /// Every descendant of `pid` now.
    static func descendants(of pid: Int32) -> [Descendant] {
        var found: [Descendant] = []
        var queue = ProcessSampler.children(of: pid)
        while let next = queue.popLast() {
            guard let stat = Descendant.stat(next), let reading = ProcessSampler.read(next) else { continue }
            found.append(Descendant(pid: next, name: reading.name, started: stat.started))
            queue += ProcessSampler.children(of: next)
        }
        return found
    }

    /// CPU seconds of `pid`'s descendants (its speech server) so far.
    static func serverCPU(of pid: Int32) -> Double? {
        let readings = descendants(of: pid).compactMap { ProcessSampler.read($0.pid) }
        return readings.isEmpty ? nil : readings.map(\.cpuSeconds).reduce(0, +)
    }

    /// Stops whatever is left of the rig (the node, the gateway, the rig's sinks, the sound server).
    static func close(_ rig: SoakBench.Rig) {
        BenchTool.terminate(rig.run)
        let gateway = rig.gateway
        // Unstructured on purpose: a synchronous teardown that does not wait for the listener.
        Task { await gateway.stopListening() }
        rig.loopback.close()
        rig.sound.stop()
    }
}
