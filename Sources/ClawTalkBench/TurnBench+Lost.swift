import ClawTalkTesting
import Foundation

extension TurnBench {
    /// The lost-turn sequence, ``lostRuns`` times: a silent `talk.ptt.once` left to run into its
    /// 12 s cap (nothing played; `turn.silent_once` times its end → its result,
    /// whatever its result's status, which is noted when it is not `empty`), then
    /// three questions by `talk.ptt.once`, the second across a gateway outage (the gateway stops
    /// listening, which drops the node's sockets, after the invoke and before the question is
    /// spoken, and listens again 3 s later on the same port). 10 s after the third, each
    /// question's deliveries are counted by text (``TurnLedger``).
    func lost(_ stage: TurnStage) async -> [BenchMetric] {
        let load = TurnStage.load()
        var count = TurnLedger.Count()
        var silent: [Double] = []
        var notes: [String] = []
        var statuses: [String] = []
        var questions = 0
        for run in 0..<lostRuns {
            let chosen = (0..<3).map { clips[(run * 3 + $0 + 17) % clips.count] }
            do {
                try await stage.soak.waitConnected(stage.rig)
                let mark = await stage.mark()
                // The silent once: the node answers when its cap has passed.
                let sent = ContinuousClock.now
                let result = try await stage.invoke("talk.ptt.once", timeoutMs: 30_000)
                let status = TurnStage.status(result)
                silent.append(BenchClock.ms(ContinuousClock.now - (sent + Self.onceCap)))
                statuses.append(status)
                for (index, clip) in chosen.enumerated() {
                    try await question(clip, outage: index == 1, stage: stage)
                }
                try await Task.sleep(for: .seconds(10))
                let texts = await stage.deliveries(since: mark).map(\.text)
                let tally = TurnLedger.count(questions: chosen.map(\.text), deliveries: texts)
                count = count + tally
                questions += chosen.count
                progress(
                    "bench turn: lost-turn run \(run + 1)/\(lostRuns): silent once \(status), "
                        + "once \(tally.once), lost \(tally.lost), duplicated \(tally.duplicated), "
                        + "unmatched \(tally.unmatched), misheard \(tally.misheard): \(texts.map { "\"\($0)\"" }.joined(separator: ", "))\n"
                )
            } catch {
                notes.append("run \(run + 1) stopped: \(error)")
                progress("bench turn: lost-turn run \(run + 1) stopped: \(error)\n")
            }
        }
        let condition =
            "clawtalk run, \(lostRuns) runs of a silent talk.ptt.once then 3 questions by talk.ptt.once, the "
            + "second across a 3 s gateway outage; load \(load) → \(TurnStage.load())"
        let reason = notes.isEmpty ? nil : notes.joined(separator: "; ")
        return [
            .value(
                "turn.lost", condition: "\(condition): questions lost", unit: "questions", value: Double(count.lost),
                n: questions, goal: BenchGoal(value: 0), reason: reason),
            .value(
                "turn.lost", condition: "\(condition): questions duplicated", unit: "questions",
                value: Double(count.duplicated), n: questions, goal: BenchGoal(value: 0)),
            .value(
                "turn.lost", condition: "\(condition): questions delivered exactly once", unit: "questions",
                value: Double(count.once), n: questions),
            .value(
                "turn.lost",
                condition: "\(condition): of those, misheard beyond a text match (in a missing question's place)",
                unit: "questions", value: Double(count.misheard), n: questions),
            .value(
                "turn.lost", condition: "\(condition): deliveries that matched no question", unit: "deliveries",
                value: Double(count.unmatched), n: questions),
            .latency(
                "turn.silent_once",
                condition: "clawtalk run, a silent talk.ptt.once: its 12 s cap (from the invoke) → its result at "
                    + "the gateway (empty expected)",
                samples: silent, goal: BenchGoal(p95: 1000),
                reason: (["results: " + statuses.joined(separator: ", ")] + notes).joined(separator: "; ")),
        ]
    }

    /// `talk.ptt.once`'s hard cap with a 30 s invoke timeout (``PTTConfiguration``).
    static let onceCap = Duration.seconds(12)

    /// One question by `talk.ptt.once`; with `outage`, the gateway goes away once the capture
    /// has started and comes back 3 s later.
    private func question(_ clip: TurnCorpus.Clip, outage: Bool, stage: TurnStage) async throws {
        try await stage.soak.waitConnected(stage.rig)
        let spoken = stage.rig.count("tts.spoken")
        let started = stage.captures
        let (gateway, nodeId) = (stage.rig.gateway, try await stage.soak.nodeId(stage.rig))
        let (port, tls) = (stage.rig.port, stage.rig.tls)
        async let result = gateway.invoke(
            nodeId: nodeId, command: "talk.ptt.once", params: .json("{}"), timeoutMs: 30_000)
        guard await stage.waitCaptureStarted(after: started) else {
            _ = await result
            throw BenchTool.Failure(description: "talk.ptt.once did not start a capture")
        }
        if outage {
            await gateway.stopListening()
            async let back: Void = Self.listen(gateway, port: port, tls: tls, after: .seconds(3))
            _ = await stage.play(clip.samples)
            try await back
        } else {
            _ = await stage.play(clip.samples)
        }
        _ = await result
        try await stage.settle(spoken: spoken)
    }

    /// Lets `gateway` listen again on `port` after `delay`.
    private static func listen(
        _ gateway: TestGateway, port: Int, tls: (certificatePath: String, keyPath: String), after delay: Duration
    ) async throws {
        try await Task.sleep(for: delay)
        _ = try await gateway.listen(port: port, tls: tls)
    }
}
