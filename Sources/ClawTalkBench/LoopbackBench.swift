import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Synchronization

/// `bench loopback`'s device measurements on the null-sink rig (benchmarks.md §5): capture and
/// playback latency by the marker method per block size, end-of-utterance latency and barge-in
/// latency with user speech injected into the mic sink. The node side is ``BenchNode`` (the
/// service's capture, front end and playback); the harness plays into `ct_mic` with its own
/// playback controller and records `ct_spk.monitor` with its own capture engine.
final class LoopbackBench {
    let rig: LoopbackRig
    let progress: (String) -> Void
    /// Where the probes' stamps go (`events.jsonl`).
    let events: BenchEventLog
    private let harness: PlaybackController
    private var random: SeededGenerator

    /// The 5 ms 1 kHz marker at half scale, followed by 45 ms of silence.
    static let marker: [Int16] = {
        var samples = (0..<80).map { Int16(16_000 * sin(2 * Double.pi * 1000 * Double($0) / 16_000)) }
        samples += [Int16](repeating: 0, count: 720)
        return samples
    }()

    init(rig: LoopbackRig, seed: UInt64, events: BenchEventLog, progress: @escaping (String) -> Void) {
        self.rig = rig
        self.events = events
        self.progress = progress
        harness = PlaybackController(
            sink: LoopbackRig.mic,
            settings: PlaybackSettings(targetLatencyMilliseconds: 20, streamName: "clawtalk bench harness"))
        random = SeededGenerator(state: seed)
    }

    deinit {
        harness.close()
    }

    /// Plays `samples` (16 kHz) into the mic sink; the instant its first sample entered the sink
    /// (first write plus the stream's reported latency).
    func inject(_ samples: [Int16]) async -> ContinuousClock.Instant? {
        let outcome = await harness.play(.pcm(PCMBuffer(format: .speech, samples: samples), kind: .speech))
        return outcome.timing?.startedAt
    }

    /// A pause of `low`…`high` seconds (seeded).
    func pause(_ low: Double, _ high: Double) async throws {
        let seconds = Double.random(in: low...high, using: &random)
        try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
    }

    // MARK: - Capture and playback latency (benchmarks.md §5.3)

    /// Markers into `ct_mic`, detected in the node's front-end frames (AEC output).
    func captureLatency(blockMilliseconds block: Int, probes: Int) async throws -> BenchMetric {
        let name = "capture.latency"
        let condition = "\(rig.server), block \(block) ms: marker entering ct_mic → front-end frame holding it"
        let node = try BenchNode(source: LoopbackRig.micSource, sink: LoopbackRig.speaker, blockMilliseconds: block)
        defer { node.close() }
        let onsets = InstantLog()
        let detector = Mutex(OnsetDetector(threshold: 3000, quietSamples: 1600))
        node.observe { frame, now in
            if detector.locked({ $0.onset(in: frame.aec) }) != nil { onsets.append(now) }
        }
        try await Task.sleep(for: .milliseconds(300))
        var starts: [ContinuousClock.Instant] = []
        for _ in 0..<probes {
            if let start = await inject(Self.marker) { starts.append(start) }
            try await pause(0.3, 0.7)
        }
        try await Task.sleep(for: .milliseconds(300))
        let clip = "capture-\(block)ms"
        for start in starts { events.record("harness.markerStart", at: start, clip: clip) }
        for onset in onsets.all { events.record("frontend.markerFrame", at: onset, clip: clip) }
        let latencies = Self.pair(starts, onsets.all)
        progress("bench loopback: capture block \(block) ms: \(latencies.count)/\(probes) markers\n")
        var metric = BenchMetric.latency(
            name, condition: condition, samples: latencies,
            reason: latencies.count < probes ? "\(probes - latencies.count) of \(probes) markers not detected" : nil)
        metric.goal = block <= 32 ? "block ≤ 32 ms (met by the block size)" : "block ≤ 32 ms"
        metric.met = metric.value == nil ? nil : block <= 32
        return metric
    }

    /// Markers written by the node's playback controller to `ct_spk`, detected on the harness's
    /// recording of `ct_spk.monitor` (10 ms reads, sample-accurate onset).
    func playbackLatency(probes: Int) async throws -> BenchMetric {
        let condition = "\(rig.server): node first write → marker on ct_spk.monitor"
        let node = try BenchNode(source: LoopbackRig.micSource, sink: LoopbackRig.speaker)
        defer { node.close() }
        let recorder = MonitorRecorder(threshold: 3000, quietSamples: 1600)
        try recorder.start()
        defer { recorder.stop() }
        try await Task.sleep(for: .milliseconds(300))
        var writes: [ContinuousClock.Instant] = []
        for _ in 0..<probes {
            let outcome = await node.playback.play(
                .pcm(PCMBuffer(format: .speech, samples: Self.marker), kind: .chime))
            if let first = outcome.timing?.firstWriteAt { writes.append(first) }
            try await pause(0.3, 0.7)
        }
        try await Task.sleep(for: .milliseconds(300))
        for write in writes { events.record("playback.firstWrite", at: write, clip: "playback-marker") }
        for onset in recorder.all { events.record("monitor.firstSample", at: onset, clip: "playback-marker") }
        let latencies = Self.pair(writes, recorder.all)
        progress("bench loopback: playback: \(latencies.count)/\(probes) markers\n")
        return .latency(
            "playback.latency", condition: condition, samples: latencies,
            reason: "the null sink hands audio to its monitor in render blocks: about ±10 ms resolution")
    }

    /// For each start, the first event in `[start − 20 ms, start + 250 ms]`, as milliseconds
    /// after it (markers are at least 300 ms apart, so a missed marker never takes the next one's
    /// event).
    static func pair(_ starts: [ContinuousClock.Instant], _ events: [ContinuousClock.Instant]) -> [Double] {
        starts.compactMap { start in
            events.first { $0 >= start - .milliseconds(20) && $0 <= start + .milliseconds(250) }
                .map { BenchClock.ms($0 - start) }
        }
    }
}
