import ClawTalkDevices
import Synchronization

/// The harness's recording of `ct_spk.monitor` (10 ms reads): the instants at which sound above
/// −40 dBFS starts after at least 300 ms below it (monitor.firstSample of benchmark.md §2),
/// sample-accurate from each read's timestamp.
final class MonitorRecorder: Sendable {
    private let engine = CaptureEngine(
        configuration: CaptureConfiguration(source: LoopbackRig.speakerMonitor, frameMilliseconds: 10))
    private let threshold: Int
    private let quietSamples: Int
    private let onsets = InstantLog()
    private let pump = Mutex<Task<Void, Never>?>(nil)

    /// A recorder counting onsets at `threshold` after `quietSamples` below it.
    init(threshold: Int = OnsetDetector.minus40dBFS, quietSamples: Int = 4_800) {
        self.threshold = threshold
        self.quietSamples = quietSamples
    }

    /// Every onset so far.
    var all: [ContinuousClock.Instant] { onsets.all }

    /// Starts recording.
    func start() throws {
        let frames = engine.frames()
        let onsets = onsets
        let threshold = threshold
        let quietSamples = quietSamples
        pump.withLock {
            $0 = Task.detached(priority: .high) {
                var detector = OnsetDetector(threshold: threshold, quietSamples: quietSamples)
                for await frame in frames {
                    guard let index = detector.onset(in: frame.samples) else { continue }
                    let read = BenchClock.instant(monotonicNanoseconds: frame.timestampNanoseconds)
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
        pump.withLock { $0?.cancel() }
    }
}
