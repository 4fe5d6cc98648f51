import ClawTalkDevices
import ClawTalkProtocol
import ClawTalkTesting
import Foundation

/// `bench turn` (issue 32): a whole voice turn of the real service, from the end of the user's
/// speech (the last sample above −40 dBFS of what is played into `ct_mic`) to the moment the
/// test gateway receives the transcript (`chat.send` on the operator connection or the
/// `voice.transcript` node event, with ``TestGateway/timedEvents(from:)``'s arrival instant),
/// for each way a turn starts:
/// - `turn.talk`: Talk mode on (the gateway's `talk.mode {enabled:true}`), one utterance;
/// - `turn.wake`: "computer, <utterance>", only the command delivered;
/// - `turn.ptt_once`: the gateway invokes `talk.ptt.once`, then the utterance;
/// - `turn.ptt_stop`: `talk.ptt.start`, the utterance, `talk.ptt.stop` at its end; timed from
///   the stop invoke;
/// each with the WER of what arrived (`turn.<route>.wer`), then the lost-turn sequence
/// (``TurnBench/lost(_:)``): `turn.lost` and `turn.silent_once`. Every reply is let play
/// before the next probe. Machine load is read at the start and end of each metric.
struct TurnBench {
    /// How a turn starts.
    enum Route: String, CaseIterable, Sendable {
        /// Talk mode on, one utterance.
        case talk
        /// "computer, <utterance>".
        case wake
        /// `talk.ptt.once`, then the utterance.
        case pttOnce = "ptt_once"
        /// `talk.ptt.start`, the utterance, `talk.ptt.stop` at its end.
        case pttStop = "ptt_stop"

        /// `turn.<route>`.
        var metric: String { "turn.\(rawValue)" }

        /// Issue 32's goal: p50 ≤ 600 ms, p95 ≤ 1000 ms; from the stop, p50 ≤ 350, p95 ≤ 700.
        var goal: BenchGoal {
            self == .pttStop ? BenchGoal(p50: 350, p95: 700) : BenchGoal(p50: 600, p95: 1000)
        }

        /// What is timed, for the report's condition.
        var label: String {
            switch self {
            case .talk: "Talk mode (talk.mode enabled by the gateway): speech end → transcript at the gateway"
            case .wake: "voice wake, \"computer, …\": speech end → command at the gateway"
            case .pttOnce: "talk.ptt.once invoked, then the utterance: speech end → transcript at the gateway"
            case .pttStop:
                "talk.ptt.start, the utterance, talk.ptt.stop at its end: stop invoke → transcript (chat.send) "
                    + "at the gateway"
            }
        }
    }

    /// What one probe measured.
    struct Sample {
        /// Milliseconds to the delivery (nil: nothing arrived).
        var latency: Double?
        /// What arrived.
        var text: String?
        /// `ptt_stop`: stop invoke → the stop's result; and how late the stop was sent after the
        /// speech end.
        var result: Double?
        var stopLag: Double?
    }

    /// Where to keep the node's log (the scratch folder is removed at the end), or nil.
    var keepLog: URL?
    /// The routes measured, in this order.
    var routes: [Route] = Route.allCases
    /// Utterances per route.
    var probes: Int
    /// Runs of the lost-turn sequence (0: none).
    var lostRuns: Int
    /// The utterances, used in rotation.
    var clips: [TurnCorpus.Clip]
    /// "computer" in each clip's voice and rate (key ``triggerKey(_:)``), 16 kHz, padded.
    var triggers: [String: [Int16]]
    /// The bench's own environment (PATH, XDG_DATA_HOME with the installed servers).
    var environment: [String: String]
    /// Where the rig's private folders go.
    var scratch: URL
    /// Progress lines (stderr).
    var progress: (String) -> Void

    /// What the gateway answers every `chat.send` with (spoken by the node with espeak-ng).
    static let reply = "Okay."
    /// The metric names and units, for a run that could not start.
    static let names =
        Route.allCases.flatMap { [($0.metric, "ms"), ($0.metric + ".wer", "ratio")] } + [
            ("turn.lost", "questions"), ("turn.silent_once", "ms"),
        ]

    /// The ``triggers`` key of `clip`'s voice and rate.
    static func triggerKey(_ clip: TurnCorpus.Clip) -> String { "\(clip.voice)-\(clip.rate)" }

    /// Starts the service and runs every route, then the lost-turn sequence.
    func run() async throws -> [BenchMetric] {
        var env = environment
        env["CLAWTALK_LOG_LEVEL"] = "debug"
        var soak = SoakBench(minutes: 0, phrases: [], environment: env, scratch: scratch, progress: progress)
        soak.chatReply = Self.reply
        let rig = try await soak.start()
        defer {
            SoakBench.stop(rig)
            if let keepLog {
                try? FileManager.default.removeItem(at: keepLog)
                try? FileManager.default.copyItem(at: rig.log, to: keepLog)
            }
        }
        let harness = PlaybackController(
            sink: LoopbackRig.mic,
            settings: PlaybackSettings(targetLatencyMilliseconds: 20, streamName: "clawtalk bench user"))
        defer { harness.close() }
        let stage = TurnStage(rig: rig, soak: soak, harness: harness, log: BargeInLog(file: rig.log))
        try await Task.sleep(for: .seconds(3))
        var metrics: [BenchMetric] = []
        for route in routes { metrics += await measure(route, stage) }
        if lostRuns > 0 { metrics += await lost(stage) }
        return metrics
    }

    /// ``probes`` probes of `route`; a probe that fails (no capture opened, the clip did not
    /// play) is left out and noted, and three failures in a row end the route.
    private func measure(_ route: Route, _ stage: TurnStage) async -> [BenchMetric] {
        let load = TurnStage.load()
        var samples: [Sample] = []
        var references: [String] = []
        var failures: [String] = []
        var inRow = 0
        do {
            if route == .talk { try await talkMode(true, stage) }
            for index in 0..<probes where inRow < 3 {
                let clip = clips[(index + route.offset) % clips.count]
                do {
                    let sample = try await probe(route, clip, stage)
                    samples.append(sample)
                    references.append(clip.text)
                    inRow = 0
                    progress(
                        "bench turn: \(route.metric) \(index + 1)/\(probes) \(clip.label): "
                            + (sample.latency.map { "\(Int($0)) ms" } ?? "nothing delivered")
                            + " → \(sample.text.map { "\"\($0)\"" } ?? "-")\n")
                } catch {
                    inRow += 1
                    failures.append("probe \(index + 1): \(error)")
                    progress("bench turn: \(route.metric) \(index + 1)/\(probes) failed: \(error)\n")
                }
            }
            if route == .talk { try await talkMode(false, stage) }
        } catch {
            failures.append("\(error)")
            progress("bench turn: \(route.metric) stopped: \(error)\n")
        }
        guard !samples.isEmpty else {
            return [
                .unmeasured(
                    route.metric, condition: route.label, unit: "ms", goal: route.goal,
                    reason: failures.joined(separator: "; "))
            ]
        }
        return Self.metrics(
            route, samples: samples, references: references, load: (load, TurnStage.load()), failures: failures)
    }

    /// One probe of `route` with `clip`.
    private func probe(_ route: Route, _ clip: TurnCorpus.Clip, _ stage: TurnStage) async throws -> Sample {
        try await stage.soak.waitConnected(stage.rig)
        let spoken = stage.rig.count("tts.spoken")
        let mark = await stage.mark()
        var sample = Sample()
        var end: ContinuousClock.Instant?
        switch route {
        case .talk:
            end = await stage.play(clip.samples)
        case .wake:
            let trigger = triggers[Self.triggerKey(clip)] ?? []
            // The trigger, a pause as people make it, the command.
            end = await stage.play(trigger + [Int16](repeating: 0, count: 9_600) + clip.samples)
        case .pttOnce:
            let started = stage.captures
            let (gateway, nodeId) = (stage.rig.gateway, try await stage.soak.nodeId(stage.rig))
            async let result = gateway.invoke(
                nodeId: nodeId, command: "talk.ptt.once", params: .json("{}"), timeoutMs: 30_000)
            guard await stage.waitCaptureStarted(after: started) else {
                _ = await result
                throw BenchTool.Failure(description: "talk.ptt.once did not start a capture")
            }
            end = await stage.play(clip.samples)
            _ = await result
        case .pttStop:
            let started = stage.captures
            _ = try await stage.invoke("talk.ptt.start", timeoutMs: 10_000)
            guard await stage.waitCaptureStarted(after: started) else {
                throw BenchTool.Failure(description: "talk.ptt.start did not start a capture")
            }
            // Played up to its last loud sample, so that the stop can follow the speech end.
            let speech = LoopbackBench.speechBounds(clip.samples)?.end ?? clip.samples.count
            guard let speechEnd = await stage.play(Array(clip.samples[..<speech])) else { break }
            try await Task.sleep(until: speechEnd)
            let stop = ContinuousClock.now
            sample.stopLag = BenchClock.ms(stop - speechEnd)
            _ = try await stage.invoke("talk.ptt.stop", timeoutMs: 30_000)
            sample.result = BenchClock.ms(ContinuousClock.now - stop)
            end = stop
        }
        guard let end else { throw BenchTool.Failure(description: "the utterance did not play") }
        if let delivery = await stage.firstDelivery(since: mark) {
            sample.latency = BenchClock.ms(delivery.at - end)
            sample.text = delivery.text
            if route == .talk {
                _ = await BenchTool.wait(seconds: 20, every: .milliseconds(100)) {
                    stage.log.read()
                    return stage.rig.count("tts.spoken") > spoken && stage.log.phases.last?.to == "listening"
                }
            }
            try await stage.settle(spoken: spoken)
        }
        return sample
    }

    /// Turns Talk mode on or off from the gateway (`talk.mode`) and waits for the node's phase.
    private func talkMode(_ enabled: Bool, _ stage: TurnStage) async throws {
        await stage.rig.gateway.setTalkMode(enabled: enabled)
        let applied = await BenchTool.wait(seconds: 15, every: .milliseconds(100)) {
            stage.log.read()
            let phase = stage.log.phases.last?.to
            return phase == (enabled ? "listening" : "idle")
        }
        guard applied else {
            guard enabled else { return }
            throw BenchTool.Failure(description: "Talk mode did not start on the gateway's talk.mode (enabled: true)")
        }
        try await Task.sleep(for: .milliseconds(500))
    }

    /// A route's latency and WER metrics.
    static func metrics(
        _ route: Route, samples: [Sample], references: [String], load: (String, String), failures: [String] = []
    ) -> [BenchMetric] {
        let condition = "clawtalk run, \(route.label); load \(load.0) → \(load.1)"
        let latencies = samples.compactMap(\.latency)
        let lost = samples.count - latencies.count
        var notes =
            failures.isEmpty
            ? [] : ["\(failures.count) probes failed and are left out: " + failures.joined(separator: "; ")]
        if lost > 0 { notes.insert("\(lost) of \(samples.count) utterances were not delivered within 20 s", at: 0) }
        var wer = WordErrorRate.Tally(edits: 0, words: 0)
        for (sample, reference) in zip(samples, references) {
            wer = wer + WordErrorRate.tally(reference: reference, hypothesis: sample.text ?? "")
        }
        var metrics: [BenchMetric] = [
            .latency(
                route.metric, condition: condition, samples: latencies, goal: route.goal,
                reason: notes.isEmpty ? nil : notes.joined(separator: "; ")),
            .value(
                route.metric + ".wer", condition: "\(route.label): delivered text vs. reference (folded)",
                unit: "ratio", value: wer.rate, n: samples.count,
                reason: lost > 0 ? "undelivered utterances count as all words deleted" : nil),
        ]
        if route == .pttStop {
            metrics.append(
                .latency(
                    route.metric, condition: "clawtalk run, stop invoke → talk.ptt.stop result at the gateway",
                    samples: samples.compactMap(\.result)))
            metrics.append(
                .latency(
                    route.metric + ".stop_lag", condition: "speech end → stop invoke sent (the bench's own lag)",
                    samples: samples.compactMap(\.stopLag)))
        }
        return metrics
    }
}

extension TurnBench.Route {
    /// Where in the clips this route's probes start (so that routes say different sentences).
    var offset: Int { (TurnBench.Route.allCases.firstIndex(of: self) ?? 0) * 7 }
}
