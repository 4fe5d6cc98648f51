import ClawTalkDevices
import ClawTalkSupport
import Synchronization

/// The harness's recording of `ct_spk.monitor` (10 ms reads): the instants at which sound above
/// −40 dBFS starts after at least 300 ms below it (monitor.firstSample of benchmarks.md §2),
/// sample-accurate from each read's timestamp; and every change between sound and silence, read
/// by read (``timeline``).
final class MonitorRecorder: Sendable {
    private let engine = CaptureEngine(
        configuration: CaptureConfiguration(source: LoopbackRig.speakerMonitor, frameMilliseconds: 10))
    private let threshold: Int
    private let quietSamples: Int
    private let onsets = InstantLog()
    /// Sound and silence, and the last read's instant.
    private let reads = Mutex<(MonitorTimeline, ContinuousClock.Instant?)>((MonitorTimeline(), nil))
    private let pump = Mutex<Task<Void, Never>?>(nil)

    /// A recorder counting onsets at `threshold` after `quietSamples` below it.
    init(threshold: Int = OnsetDetector.minus40dBFS, quietSamples: Int = 4_800) {
        self.threshold = threshold
        self.quietSamples = quietSamples
    }

    /// Every onset so far.
    var all: [ContinuousClock.Instant] { onsets.all }

    /// Sound and silence so far, and the instant of the last read.
    var timeline: (MonitorTimeline, now: ContinuousClock.Instant) {
        reads.locked { ($0.0, $0.1 ?? .now) }
    }

    /// Starts recording.
    func start() throws {
        let frames = engine.frames()
        let onsets = onsets
        let threshold = threshold
        let quietSamples = quietSamples
        pump.locked {
            $0 = Task.detached(priority: .high) { [self] in
                var detector = OnsetDetector(threshold: threshold, quietSamples: quietSamples)
                for await frame in frames {
                    let read = BenchClock.instant(monotonicNanoseconds: frame.timestampNanoseconds)
                    let start = read - BenchClock.duration(samples: frame.samples.count)
                    let sound = frame.samples.contains { Int($0.magnitude) >= threshold }
                    reads.locked { reads in
                        reads.0.note(sound: sound, at: start)
                        reads.1 = read
                    }
                    guard let index = detector.onset(in: frame.samples) else { continue }
                    onsets.append(read - BenchClock.duration(samples: frame.samples.count - index))
                }
            }
        }
        try engine.start()
    }

    /// The first onset at or after `instant`.
    func firstOnset(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        onsets.first(atOrAfter: instant)
    }

    /// Stops recording.
    func stop() {
        engine.stop()
        pump.locked { $0?.cancel() }
    }
}
