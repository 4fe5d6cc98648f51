import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSpeech
import ClawTalkSupport
import Foundation
import Synchronization

extension LoopbackBench {
    /// Accepted wakes of a detector that follows a node's front-end frames (AEC output) on its
    /// own task, stamped on arrival of the frame that produced them; `onWake` runs for each.
    final class WakeListener: Sendable {
        let wakes = InstantLog()
        /// Stage-1 hits (accepted or refused by the verifier).
        let hits = InstantLog()
        /// Each stage-1 hit as "trigger engine score (accepted|refused)", for the progress lines.
        let hitDescriptions = Lines()
        private let task: Task<Void, Never>

        init(
            node: BenchNode, detector: sending TwoStageWakeDetector,
            onWake: @escaping @Sendable (ContinuousClock.Instant) -> Void = { _ in }
        ) {
            let frames = node.frontEnd.frames()
            let wakes = wakes
            let hits = hits
            let descriptions = hitDescriptions
            task = Task.detached(priority: .high) {
                for await frame in frames {
                    guard let verdicts = try? await detector.process(frame.aec, echo: frame.echoActive) else {
                        continue
                    }
                    for verdict in verdicts {
                        hits.append(.now)
                        let hit = verdict.hit
                        let line =
                            "\(hit.trigger) \(hit.engine) score \(hit.score) at \(hit.atSeconds) s "
                            + (verdict.rejection.map { "(refused: \($0))" } ?? "(accepted)")
                        descriptions.append(line)
                    }
                    if verdicts.contains(where: \.isAccepted) {
                        let now = ContinuousClock.now
                        wakes.append(now)
                        onWake(now)
                    }
                }
            }
        }

        func stop() {
            task.cancel()
        }

        /// Lines appended from the listener's task.
        final class Lines: Sendable {
            private let lines = Mutex<[String]>([])

            func append(_ line: String) { lines.locked { $0.append(line) } }

            var all: [String] { lines.locked { $0 } }
        }
    }

    /// Wake latency on the loopback path and wake → chime: a spoken trigger goes into `ct_mic`;
    /// the node's wake detector runs on the front end's frames and, on a wake, the node plays the
    /// trigger chime to `ct_spk`. wake.detected is the arrival of the frame that produced the
    /// wake; chime.firstSample is taken at the sink (playback.firstWrite) and on the monitor.
    /// The bench composes detector → chime itself (the service's wake path is not used).
    func wakeAndChime(
        phrase: [Int16], trigger: String, detector: sending TwoStageWakeDetector, probes: Int
    ) async throws -> [BenchMetric] {
        let condition = "\(rig.server), '\(trigger)' (espeak-ng) into ct_mic"
        guard let bounds = Self.speechBounds(phrase) else { return [] }
        let node = try BenchNode(source: LoopbackRig.micSource, sink: LoopbackRig.speaker)
        defer { node.close() }
        let recorder = MonitorRecorder()
        try recorder.start()
        defer { recorder.stop() }
        let playback = node.playback
        let chimes = InstantLog()
        let chime = Chime.trigger.render(sampleRate: 16_000)
        let listener = WakeListener(node: node, detector: detector) { _ in
            let handle = playback.enqueue(.pcm(chime, kind: .chime))
            // Unstructured on purpose: the listener's callback is synchronous; the bench only
            // notes when the chime's first write happened.
            Task {
                if let first = await handle.outcome().timing?.firstWriteAt { chimes.append(first) }
            }
        }
        defer { listener.stop() }
        try await Task.sleep(for: .milliseconds(500))
        var latencies: [Double] = []
        var sinkDelays: [Double] = []
        var monitorDelays: [Double] = []
        var missed = 0
        for _ in 0..<probes {
            let before = listener.wakes.count
            guard let start = await inject(phrase) else { continue }
            try await Task.sleep(for: .milliseconds(1_500))
            guard let wake = listener.wakes.first(after: before) else {
                missed += 1
                continue
            }
            let phraseEnd = start + BenchClock.duration(samples: bounds.end)
            latencies.append(BenchClock.ms(wake - phraseEnd))
            events.record("truth.phraseEnd", at: phraseEnd, clip: "wake", data: ["trigger": trigger])
            events.record("wake.detected", at: wake, clip: "wake", data: ["trigger": trigger])
            if let first = chimes.first(atOrAfter: wake) {
                sinkDelays.append(BenchClock.ms(first - wake))
                events.record("playback.firstWrite", at: first, clip: "wake", data: ["item": "chime"])
            }
            if let heard = recorder.firstOnset(after: wake) {
                monitorDelays.append(BenchClock.ms(heard - wake))
                events.record("chime.firstSample", at: heard, clip: "wake")
            }
            try await pause(0.3, 0.6)
        }
        progress("bench loopback: wake → chime: \(latencies.count)/\(probes) wakes\n")
        let note = missed > 0 ? "\(missed) of \(probes) phrases not detected" : nil
        return [
            .latency(
                "wake.latency", condition: "\(condition): phrase end → wake.detected", samples: latencies,
                goal: .wakeLatency, reason: note),
            .latency(
                "wake.chime", condition: "\(condition): wake.detected → chime playback.firstWrite", samples: sinkDelays,
                goal: .wakeToChime, reason: "bench composition detector → chime (not the service's wake path)"),
            .latency(
                "wake.chime.monitor", condition: "\(condition): wake.detected → chime on ct_spk.monitor",
                samples: monitorDelays, goal: .wakeToChime),
        ]
    }

    /// Self-trigger rate: the node plays `reply` (espeak-ng reading a text) to `ct_spk` with the
    /// echo path mixing it into `ct_mic`; every accepted wake counts. With and without AEC.
    func selfTrigger(
        reply: [Int16], detector: sending TwoStageWakeDetector, verified: Bool, frontEnd settings: FrontEndSettings
    ) async throws -> [BenchMetric] {
        let processing = settings.stages.echoCancellation == .off ? "no AEC" : "AEC \(settings.stages.echoCancellation)"
        let played = "\(rig.server), echo path (−6 dB), \(processing): node's espeak-ng reading played"
        // The service verifies a stage-1 hit with Whisper before it wakes.
        let condition =
            played + (verified ? ", stage 1 + Whisper verifier (as run)" : ", wake stage 1 only (no Wyoming server)")
        try rig.enableEcho()
        defer { rig.disableEcho() }
        let node = try BenchNode(source: LoopbackRig.micSource, sink: LoopbackRig.speaker, frontEnd: settings)
        defer { node.close() }
        let listener = WakeListener(node: node, detector: detector)
        defer { listener.stop() }
        // Talk mode's barge-in onsets on the same echo (with AEC only: without it Talk mode is
        // half-duplex and does not listen while it speaks).
        let onsets = settings.stages.echoCancellation == .off ? nil : TalkOnsetMonitor()
        let onsetCount = Mutex(0)
        if let onsets {
            node.observe { frame, _ in
                if onsets.feed(frame) { onsetCount.locked { $0 += 1 } }
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        // Played as consecutive clips: one clip stops at the player's limit
        // (PlaybackSettings.maximumDuration, 300 s), which capped every longer exposure.
        var playedSeconds = 0.0
        var failure: String?
        for clip in Self.clips(reply, seconds: Self.exposureClipSeconds) {
            let outcome = await node.playback.play(.pcm(PCMBuffer(format: .speech, samples: clip), kind: .speech))
            playedSeconds += outcome.playedSeconds
            if outcome.playedSeconds == 0 {
                failure = "\(outcome)"
                break
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        node.unobserve()
        let wakes = WakeBenchStatistics.distinct(
            listener.wakes.all.map { BenchClock.ms($0 - listener.wakes.all[0]) / 1000 }, refractory: 2
        ).count
        let hours = playedSeconds / 3600
        let hits = listener.hits.count
        progress(
            "bench loopback: self-trigger (\(processing)): \(wakes) wakes (\(hits) stage-1 hits) in "
                + "\(Int(playedSeconds)) s\n")
        for line in listener.hitDescriptions.all {
            progress("bench loopback: self-trigger (\(processing)): stage-1 hit: \(line)\n")
        }
        guard hours > 0 else {
            return [
                .unmeasured(
                    "wake.self_trigger", condition: condition, unit: "per_hour", goal: .selfTrigger,
                    reason: "the reply did not play: \(failure ?? "nothing to play")")
            ]
        }
        let metric = Self.rate("wake.self_trigger", count: wakes, hours: hours, condition: condition, reason: nil)
        guard onsets != nil else { return [metric] }
        let falseOnsets = onsetCount.locked { $0 }
        progress(
            "bench loopback: Talk onsets on the echo (\(processing)): \(falseOnsets) in \(Int(playedSeconds)) s "
                + "(\(onsets?.heldBack ?? 0) more held back as echo by the double-talk test)\n")
        return [
            metric,
            Self.rate(
                "bargein.false_rate", count: falseOnsets, hours: hours,
                condition: played + ": Talk onset rule (pause; no Whisper confirmation)",
                reason: "onsets the node's own echo started; each pauses the reply and asks Whisper to confirm"),
        ]
    }

    /// Longest clip of a self-trigger exposure (under the player's 300 s limit).
    static let exposureClipSeconds = 240.0

    /// `samples` (16 kHz) in consecutive pieces of at most `seconds`.
    static func clips(_ samples: [Int16], seconds: Double) -> [[Int16]] {
        let size = max(Int(seconds * 16_000), 1)
        return stride(from: 0, to: samples.count, by: size).map { Array(samples[$0..<min($0 + size, samples.count)]) }
    }

    /// A count per hour of `hours` with its exact Poisson 95 % interval (goal: none at all).
    static func rate(_ name: String, count: Int, hours: Double, condition: String, reason: String?) -> BenchMetric {
        let reasons = [hours < 1 ? "below the 1 h the goal needs" : nil, reason].compactMap { $0 }
        var metric = BenchMetric.value(
            name, condition: condition, unit: "per_hour", value: Double(count) / hours, n: count,
            goal: .selfTrigger, reason: reasons.isEmpty ? nil : reasons.joined(separator: "; "))
        if hours < 1, metric.met == true { metric.met = nil }
        metric.count = count
        metric.exposure = BenchMetric.rounded(hours)
        metric.exposureUnit = "h"
        let interval = WakeBenchStatistics.poisson(count)
        metric.ci95 = [interval.lowerBound / hours, interval.upperBound / hours].map(BenchMetric.rounded)
        return metric
    }
}
