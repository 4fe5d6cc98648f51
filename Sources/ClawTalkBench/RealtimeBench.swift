import ClawTalkAudio
import ClawTalkDevices
import ClawTalkTesting
import Foundation

/// Realtime Talk over the gateway relay as the service does it (issue 34, talk.md §9.2): the real
/// `clawtalk run` opted in (`CLAWTALK_TALK_REALTIME_RELAY`) on ``SoakBench``'s private rig, against
/// the test gateway's emulated realtime provider (its server VAD off, so that only the node's own
/// barge-in acts), the reply espeak-ng speech sent in 20 ms pcm16 chunks at 24 kHz in real time,
/// the echo path at −6 dB into the microphone with echo cancellation on. Read at the speaker
/// monitor (``MonitorTimeline``) and at the gateway:
/// - `realtime.reply_audio`: the gateway sent a reply's first chunk → sound at the monitor;
/// - `realtime.bargein`: the user's speech onset in `ct_mic` → the reply silent at the monitor;
/// - `realtime.bargein.cancel`: the onset → `talk.session.cancelOutput` at the gateway;
/// - `realtime.false_cancels_per_hour`: cancels while the node reads replies alone;
/// - `realtime.append`: a tone burst in `ct_mic` (no reply playing) → the append carrying it at
///   the gateway, less the rest of its 20 ms chunk; `realtime.append.bad_timestamps`: appends of
///   the whole run whose `timestamp` is not the chunk's start in whole ms (out of order, skipped)
///   or that the gateway refused as not a JSON integer.
struct RealtimeBench {
    /// Probes per latency metric.
    var probes: Int
    /// Minutes of the node reading replies alone.
    var quietMinutes: Double
    /// The user's interruption, 16 kHz mono.
    var interruption: [Int16]
    /// The long reply, pcm16 at 24 kHz, sounding from its first sample.
    var reply: [Int16]
    var environment: [String: String]
    var scratch: URL
    var progress: (String) -> Void

    /// The family's metric names and units.
    static let names = [
        ("realtime.reply_audio", "ms"), ("realtime.bargein", "ms"), ("realtime.bargein.cancel", "ms"),
        ("realtime.false_cancels_per_hour", "per_hour"), ("realtime.false_pauses_per_hour", "per_hour"),
        ("realtime.append", "ms"), ("realtime.append.bad_timestamps", "count"),
    ]

    static let label = "clawtalk run, realtime Talk over the gateway relay, echo path −6 dB, AEC"

    /// Runs the bench; every metric not measured, with the reason, when it cannot.
    func run() async -> [BenchMetric] {
        do {
            return try await measure()
        } catch {
            return Self.names.map { .unmeasured($0.0, condition: Self.label, unit: $0.1, reason: "\(error)") }
        }
    }

    private func measure() async throws -> [BenchMetric] {
        var env = environment
        env["CLAWTALK_LOG_LEVEL"] = "debug"
        var script = TestRealtimeScript()
        script.reply = reply
        script.chunkPaceMs = 20
        script.serverVAD = false
        var soak = SoakBench(minutes: 0, phrases: [], environment: env, scratch: scratch, progress: progress)
        soak.realtime = script
        let rig = try await soak.start()
        defer {
            SoakBench.stop(rig)
            // The node's debug log (each onset's double-talk evidence) where the caller asked.
            if let keep = ProcessInfo.processInfo.environment["CLAWTALK_BENCH_REALTIME_LOG"] {
                try? FileManager.default.removeItem(atPath: keep)
                try? FileManager.default.copyItem(at: rig.log, to: URL(fileURLWithPath: keep))
            }
        }
        try rig.loopback.enableEcho(decibels: -6)
        let (monitor, harness) = try SoakBench.user()
        defer {
            harness.close()
            monitor.stop()
        }
        let gateway = rig.gateway
        try soak.control(["talk", "on"], rig: rig)
        guard
            await BenchTool.wait(
                seconds: 60,
                until: { await gateway.realtimeAppendCount > 10 })
        else { throw BenchTool.Failure(description: "the relay did not start: \(rig.text.suffix(2000))") }
        // One reply played out first: the echo canceller converges on it, as on a node that has
        // spoken before.
        progress("bench realtime: warm-up reply\n")
        _ = try await play(gateway, until: nil)

        // Microphone → append: a 150 ms tone burst at −12 dBFS into the microphone, nothing playing.
        let burst = (0..<2400).map { Int16(8192 * sin(2 * Double.pi * 440 * Double($0) / 16_000)) }
        var appends: [Double] = []
        for index in 0..<probes {
            try await Task.sleep(for: .milliseconds(500))
            let played = await harness.play(.pcm(PCMBuffer(format: .speech, samples: burst), kind: .speech))
            try await Task.sleep(for: .milliseconds(400))
            guard let onset = played.timing?.startedAt, let session = await Self.session(gateway) else { continue }
            let figure = RealtimeFigures.append(
                onset: onset, audio: session.audio,
                chunks: zip(session.chunkSamples, session.arrivals).map { ($0, $1) }, threshold: 1000)
            if let figure { appends.append(figure) }
            progress("bench realtime: append \(index + 1)/\(probes): \(figure.map { "\(Int($0)) ms" } ?? "none")\n")
        }

        // Reply audio: a 1.5 s reply each, from a silent monitor.
        let short = Array(reply.prefix(36_000))
        await gateway.setRealtimeReply(short)
        var replyAudio: [Double] = []
        for index in 0..<probes {
            try await Task.sleep(for: .milliseconds(700))
            let span = try await play(gateway, until: nil)
            try await Task.sleep(for: .milliseconds(300))
            let figure = span.flatMap { RealtimeFigures.replyAudio(firstChunk: $0.start, monitor: monitor.timeline.0) }
            if let figure { replyAudio.append(figure) }
            progress(
                "bench realtime: reply_audio \(index + 1)/\(probes): \(figure.map { "\(Int($0)) ms" } ?? "none")\n")
        }

        // Barge-in: the long reply, the user speaks 2–4 s into it.
        await gateway.setRealtimeReply(reply)
        var random = SeededGenerator(state: 34)
        var silent: [Double] = []
        var cancels: [Double] = []
        for index in 0..<probes {
            try await Task.sleep(for: .milliseconds(700))
            await gateway.startRealtimeReply()
            guard let turn = await gateway.realtimeTurn()?.turnId,
                await BenchTool.wait(seconds: 10, until: { await gateway.realtimeTurn(turn)?.startedAt != nil })
            else { continue }
            try await Task.sleep(for: .milliseconds(Int(Double.random(in: 2...4, using: &random) * 1000)))
            let start = LoopbackBench.speechBounds(interruption)?.start ?? 0
            let played = await harness.play(.pcm(PCMBuffer(format: .speech, samples: interruption), kind: .speech))
            guard let onset = played.timing?.startedAt.map({ $0 + BenchClock.duration(samples: start) }) else {
                continue
            }
            _ = await BenchTool.wait(seconds: 10) { await gateway.realtimeTurn(turn)?.active != true }
            try await Task.sleep(for: .milliseconds(300))
            let (timeline, now) = monitor.timeline
            let pause = RealtimeFigures.silent(onset: onset, monitor: timeline, now: now)
            let all = await Self.session(gateway)?.cancels.map(\.at) ?? []
            let cancel = RealtimeFigures.cancel(onset: onset, cancels: all)
            if let pause { silent.append(pause) }
            if let cancel { cancels.append(cancel) }
            progress(
                "bench realtime: bargein \(index + 1)/\(probes): silent \(pause.map { "\(Int($0)) ms" } ?? "none"), "
                    + "cancelOutput \(cancel.map { "\(Int($0)) ms" } ?? "none")\n")
            // The turn ends (cancelled, or played out when the node missed the interruption).
            _ = try await play(gateway, until: turn)
        }

        // Reading alone: replies one after the other, nobody speaking.
        var spans: [(start: ContinuousClock.Instant, end: ContinuousClock.Instant)] = []
        let rejectedBefore = Self.rejectedOnsets(rig.text)
        if quietMinutes > 0 {
            progress("bench realtime: the node reads alone for \(quietMinutes) min\n")
            let end = ContinuousClock.now + .milliseconds(Int(quietMinutes * 60_000))
            while ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(500))
                guard let span = try await play(gateway, until: nil) else { break }
                spans.append(span)
            }
        }
        // Every session's cancels: a relay failure replaces the session (a run at load 11 lost
        // 8 cancels of the first one when only the newest was read).
        let quiet = RealtimeFigures.falseCancels(
            cancels: await gateway.recordedRealtimeSessions().flatMap { $0.cancels.map(\.at) }, spans: spans)
        let held = Self.rejectedOnsets(rig.text) - rejectedBefore
        let sessions = await gateway.recordedRealtimeSessions()
        let bad = sessions.reduce(0) {
            $0 + RealtimeFigures.badTimestamps($1.timestamps, chunkSamples: $1.chunkSamples) + $1.refusedTimestamps
        }
        let chunks = sessions.reduce(0) { $0 + $1.timestamps.count + $1.refusedTimestamps }
        return report(replyAudio: replyAudio, silent: silent, cancels: cancels, quiet: quiet)
            + [heldOnsets(held, hours: quiet.hours)] + appendMetrics(appends, bad: bad, chunks: chunks)
    }

    /// `realtime.onset_rejected` lines in the node's log: onsets that paused output and were not
    /// taken for the user.
    static func rejectedOnsets(_ log: String) -> Int {
        log.split(separator: "\n").filter { $0.contains("realtime.onset_rejected") }.count
    }

    /// `realtime.false_pauses_per_hour`: onsets while the node read alone that paused its output
    /// until they were rejected (report only: the issue sets no goal for them).
    private func heldOnsets(_ count: Int, hours: Double) -> BenchMetric {
        let name = "realtime.false_pauses_per_hour"
        let condition = "\(Self.label): realtime.onset_rejected while the node reads replies alone (output paused)"
        guard hours > 0 else {
            return .unmeasured(name, condition: condition, unit: "per_hour", reason: "no reading alone (exposure 0)")
        }
        var metric = BenchMetric.value(
            name, condition: condition, unit: "per_hour", value: Double(count) / hours, n: count)
        metric.count = count
        metric.exposure = BenchMetric.rounded(hours)
        metric.exposureUnit = "h"
        return metric
    }

    /// `realtime.append` and `realtime.append.bad_timestamps`.
    private func appendMetrics(_ samples: [Double], bad: Int, chunks: Int) -> [BenchMetric] {
        var timestamps = BenchMetric.value(
            "realtime.append.bad_timestamps",
            condition:
                "\(Self.label): appends whose timestamp is not a JSON integer or not the chunk's start in whole ms, "
                + "of \(chunks)",
            unit: "count", value: Double(bad), n: chunks, goal: BenchGoal(value: 0))
        timestamps.count = bad
        return [
            .latency(
                "realtime.append",
                condition: "\(Self.label): a tone burst's 20 ms chunk all in ct_mic → its appendAudio at the gateway",
                samples: samples, goal: BenchGoal(p95: 40),
                reason: samples.count < probes ? "\(probes - samples.count) of \(probes) probes without a figure" : nil),
            timestamps,
        ]
    }

    /// Starts a reply (or, with `turn`, follows that one) and waits until it ended: played out
    /// (its last chunk sent and its marks acknowledged) or cancelled. Its first chunk → its end.
    /// It polls ``TestGateway/realtimeTurn(_:)``, never the whole session: a copy of the session
    /// held while the gateway appended made the append copy the session's whole recording.
    private func play(_ gateway: TestGateway, until turn: String?) async throws
        -> (start: ContinuousClock.Instant, end: ContinuousClock.Instant)?
    {
        var id = turn
        if id == nil {
            await gateway.startRealtimeReply()
            id = await gateway.realtimeTurn()?.turnId
        }
        guard let id else { return nil }
        let ended = await BenchTool.wait(seconds: 120) { await gateway.realtimeTurn(id)?.ended ?? true }
        guard ended, let start = await gateway.realtimeTurn(id)?.startedAt else { return nil }
        return (start, .now)
    }

    /// The newest open realtime session.
    static func session(_ gateway: TestGateway) async -> TestRealtimeSession? {
        await gateway.recordedRealtimeSessions().last { !$0.closed && !$0.dropped }
    }

    private func report(
        replyAudio: [Double], silent: [Double], cancels: [Double], quiet: (count: Int, hours: Double)
    ) -> [BenchMetric] {
        let missed = { (samples: [Double]) in
            samples.count < probes ? "\(probes - samples.count) of \(probes) probes without a figure" : nil
        }
        var rate = BenchMetric.value(
            "realtime.false_cancels_per_hour",
            condition: "\(Self.label): cancelOutput while the node reads replies alone",
            unit: "per_hour", value: quiet.hours > 0 ? Double(quiet.count) / quiet.hours : 0, n: quiet.count,
            goal: BenchGoal(value: 0),
            reason: quiet.hours < 0.5
                ? "\(BenchMetric.rounded(quiet.hours * 60)) min, below the 30 min the goal needs" : nil)
        if quiet.hours < 0.5, rate.met == true { rate.met = nil }
        rate.count = quiet.count
        rate.exposure = BenchMetric.rounded(quiet.hours)
        rate.exposureUnit = "h"
        if quiet.hours == 0 {
            rate = .unmeasured(
                "realtime.false_cancels_per_hour", condition: rate.condition, unit: "per_hour",
                goal: BenchGoal(value: 0), reason: "no reading alone (exposure 0)")
        }
        return [
            .latency(
                "realtime.reply_audio",
                condition: "\(Self.label): the gateway's first audio chunk → sound at ct_spk.monitor",
                samples: replyAudio, goal: BenchGoal(p95: 60), reason: missed(replyAudio)),
            .latency(
                "realtime.bargein",
                condition: "\(Self.label): the user's speech onset → reply silent at ct_spk.monitor",
                samples: silent, goal: BenchGoal(p95: 150), reason: missed(silent)),
            .latency(
                "realtime.bargein.cancel", condition: "\(Self.label): the speech onset → cancelOutput at the gateway",
                samples: cancels, goal: BenchGoal(p95: 150), reason: missed(cancels)),
            rate,
        ]
    }
}
