import ClawTalkAudio
import ClawTalkSupport
import Dispatch
import Foundation
import Synchronization

/// Captures 16 kHz mono s16 audio in 20 ms frames from the chosen source (by name or
/// description; the default source otherwise) and hands it to async consumers.
///
/// Threads and tasks:
/// - **Capture thread** (a dedicated `Thread`): opens the stream, blocks in its reads and writes each
///   frame with a monotonic timestamp into a preallocated ``FrameRing``. Per frame it does no
///   allocation, locking, logging or awaiting; it publishes the frame's RMS and peak as atomic
///   bit patterns and counts frames, overruns and read errors in atomics. It also handles device
///   loss (see ``CaptureLoop``): fallback to the default source, return to the chosen one, retry
///   with backoff when nothing opens. It never crashes and never spins.
/// - **Watcher thread** (only when a source is chosen): lists the server's sources every
///   ``CaptureConfiguration/deviceCheckInterval`` and tells the capture thread whether the
///   chosen one is present.
/// - **Drain thread** (`clawtalk.capture.drain`): sleeps until the capture thread signals a frame
///   (no polling: one wake-up per frame, none while the device is silent or gone), then drains
///   the ring, keeps the pre-roll (``preRoll()``), runs the attached ``CaptureFrameConsumer``
///   (the front end) on each frame and yields to every ``frames()`` stream.
/// - **Idle batching**: while the consumer reports itself idle, the capture thread reads one
///   ``CaptureConfiguration/idleDrainInterval`` (100 ms) of frames at a time and signals once per
///   block, so silence costs ten wake-ups a second of each thread instead of fifty, downstream
///   included. The price: a sound that ends the idle spell arrives up to one block late; the
///   next read is a single frame again. Playback is never idle (the front end says so while it
///   has far-end audio), so barge-in is not delayed.
///
/// Device changes (details in ``CaptureLoop``): when the chosen source goes away (a read error,
/// or it is no longer listed: PulseAudio 14+ quietly moves its streams to the default source) the
/// engine captures from the default source (``CaptureState/fallback(reason:)``) and returns to
/// the chosen one within about one check interval of it being listed again. When nothing can be
/// opened it reports ``CaptureState/unavailable(reason:)`` and retries with backoff.
///
/// Lifecycle: `idle` → ``start()`` → running → ``stop()`` → stopped, once. ``start()`` and
/// ``stop()`` block briefly (device listing, opening, joining the thread); call them from a
/// context that may block for that long. Logging is the caller's job: read ``stats`` (say every
/// 10 s) and ``state``.
public final class CaptureEngine: Sendable {
    /// The settings this engine was created with.
    public let configuration: CaptureConfiguration

    private let backend: any CaptureBackend
    private let ring: FrameRing
    private let shared: CaptureShared
    private let lifecycle = Mutex<Lifecycle>(.idle)

    private enum Lifecycle {
        case idle
        case running
        case stopped
    }

    /// Creates an engine; nothing is opened until ``start()``.
    public init(
        configuration: CaptureConfiguration = CaptureConfiguration(),
        backend: any CaptureBackend = PulseCaptureBackend()
    ) {
        self.configuration = configuration
        self.backend = backend
        ring = FrameRing(capacity: max(configuration.ringFrames, 2), frameSize: configuration.frameSamples)
        shared = CaptureShared(
            chosenName: nil,
            preRoll: PreRollBuffer(milliseconds: configuration.preRollMilliseconds, format: configuration.format))
    }

    deinit {
        shared.stopRequested.store(true, ordering: .relaxed)
        shared.framesReady.signal()
        shared.watcherWake.signal()
        shared.closeSubscribers()
        shared.consumer.locked { $0 }?.captureEnded()
    }

    /// Resolves the chosen source, starts the capture thread and waits until its first stream is
    /// open. Throws ``AudioDeviceError/notFound(name:available:)`` for a source that does not
    /// exist (no silent fallback at startup), ``AudioDeviceError/serverUnavailable(_:)`` without
    /// a server, or the open error; after an error the engine is still idle and may be started
    /// again. Starting a running engine does nothing; starting a stopped one throws.
    public func start() throws {
        try lifecycle.locked { lifecycle in
            switch lifecycle {
            case .running: return
            case .stopped: throw AudioDeviceError.io("the capture engine was stopped; create a new one")
            case .idle: break
            }
            if let query = configuration.source {
                let device = try PulseDeviceCatalog.resolve(query, kind: .source, in: backend.devices())
                shared.chosenName.locked { $0 = device.name }
                shared.chosenAvailable.store(true, ordering: .relaxed)
            }
            do {
                try startCaptureThread()
            } catch let timeout as StartTimeout {
                // The thread may still open later and must then exit at once.
                shared.stopRequested.store(true, ordering: .relaxed)
                lifecycle = .stopped
                throw timeout.error
            }
            let drainer = Thread { [ring, shared, configuration] in
                Self.drain(ring: ring, shared: shared, interval: configuration.drainInterval)
            }
            drainer.name = "clawtalk.capture.drain"
            drainer.qualityOfService = .userInteractive
            drainer.start()
            if let query = configuration.source {
                let watcher = SourceWatcher(
                    backend: backend, shared: shared, query: query, interval: configuration.deviceCheckInterval)
                let thread = Thread { watcher.run() }
                thread.name = "clawtalk.capture.watch"
                thread.start()
            }
            lifecycle = .running
        }
    }

    /// Stops capturing: the capture thread finishes its current read (≤ one frame, 20 ms, or
    /// ≤ 50 ms while the source sends nothing) and closes the stream, the consumer task ends and
    /// every ``frames()`` stream finishes. A ``start()`` still waiting for its first open (a fresh
    /// sound server that does not answer yet) gives up within 50 ms and throws
    /// ``AudioDeviceError/interrupted``. No frame captured after `stop()` returns is delivered
    /// (frames already buffered in a stream still are). Should a thread not end at once anyway,
    /// `stop()` waits for it at most ``stopWaitLimit``; it then closes its stream when it
    /// returns. Calling it again does nothing.
    public func stop() {
        // Before the lock: a start() waiting for its first open holds it, and its capture thread
        // gives up opening as soon as it sees this.
        shared.stopRequested.store(true, ordering: .relaxed)
        lifecycle.locked { lifecycle in
            switch lifecycle {
            case .stopped:
                return
            case .idle:
                shared.stopRequested.store(true, ordering: .relaxed)
            case .running:
                shared.stopRequested.store(true, ordering: .relaxed)
                shared.watcherWake.signal()
                _ = shared.threadFinished.wait(timeout: .now() + Self.stopWaitLimit)
                shared.framesReady.signal()
                _ = shared.drainFinished.wait(timeout: .now() + Self.stopWaitLimit)
            }
            shared.closeSubscribers()
            shared.setStatus(.stopped, device: nil)
            lifecycle = .stopped
        }
        let consumer = shared.consumer.locked { consumer in
            defer { consumer = nil }
            return consumer
        }
        consumer?.captureEnded()
    }

    /// Runs `consumer` on the drain thread for every frame from now on (replacing any other),
    /// until ``detach(_:)`` or ``stop()``, which call its ``CaptureFrameConsumer/captureEnded()``.
    /// Attaching to a stopped engine ends the consumer at once.
    public func attach(_ consumer: any CaptureFrameConsumer) {
        let stopped = lifecycle.locked { $0 == .stopped }
        guard !stopped else {
            consumer.captureEnded()
            return
        }
        let previous = shared.consumer.locked { current in
            defer { current = consumer }
            return current
        }
        if let previous, previous !== consumer { previous.captureEnded() }
    }

    /// Stops running `consumer` (if it is the attached one) and ends it; frames are then
    /// delivered one by one again.
    public func detach(_ consumer: any CaptureFrameConsumer) {
        let removed = shared.consumer.locked { current -> Bool in
            guard let attached = current, attached === consumer else { return false }
            current = nil
            return true
        }
        shared.idleWakeLevelBits.store(0, ordering: .relaxed)
        if removed { consumer.captureEnded() }
    }

    /// A new stream of captured frames, buffering the newest
    /// ``CaptureConfiguration/streamBufferFrames`` (≈ 500 ms) for a slow reader and counting what
    /// it drops in ``CaptureStats/streamDrops``. Subscribe before ``start()`` to miss nothing;
    /// the stream finishes at ``stop()`` (at once if already stopped).
    public func frames() -> AsyncStream<CapturedFrame> {
        shared.subscribe(bufferingNewest: configuration.streamBufferFrames)
    }

    /// The most recent ``CaptureConfiguration/preRollMilliseconds`` of audio (less right after
    /// start), oldest first: what was said just before a wake word or push-to-talk press.
    public func preRoll() -> [Int16] {
        shared.preRoll.locked { $0.snapshot() }
    }

    /// Where the audio comes from now.
    public var state: CaptureState {
        shared.status.locked { $0.state }
    }

    /// RMS and peak (full scale 1.0) of the latest frame, read from atomics.
    public var levels: (rms: Double, peak: Double) {
        (
            Double(bitPattern: shared.rmsBits.load(ordering: .relaxed)),
            Double(bitPattern: shared.peakBits.load(ordering: .relaxed))
        )
    }

    /// Whether the capture thread still runs: after ``stop()`` gave up waiting for it, until it
    /// returns (tests: the barrier after which no frame can be counted).
    var isCaptureThreadRunning: Bool {
        shared.captureThreadRunning.load(ordering: .sequentiallyConsistent)
    }

    /// A snapshot of the counters and state.
    public var stats: CaptureStats {
        let status = shared.status.locked { $0 }
        let levels = self.levels
        return CaptureStats(
            frames: shared.frames.load(ordering: .relaxed), overruns: ring.overruns,
            streamDrops: shared.fanout.drops,
            readErrors: shared.readErrors.load(ordering: .relaxed),
            openFailures: shared.openFailures.load(ordering: .relaxed),
            reopenCount: shared.reopens.load(ordering: .relaxed), currentDevice: status.device,
            state: status.state, rms: levels.rms, peak: levels.peak)
    }

    /// The longest ``stop()`` waits for each of the capture and drain threads (they end within
    /// 50 ms; this only bounds a stop if something in the device hangs).
    static let stopWaitLimit: DispatchTimeInterval = .milliseconds(200)

    // MARK: - Private

    /// The first open did not finish within ``CaptureConfiguration/startTimeout``.
    private struct StartTimeout: Error {
        var error: AudioDeviceError
    }

    /// Starts the capture thread and waits for its first open; rethrows its error.
    private func startCaptureThread() throws {
        let thread = Thread { [backend, ring, shared, configuration] in
            var loop = CaptureLoop(backend: backend, ring: ring, shared: shared, configuration: configuration)
            loop.run()
        }
        thread.name = "clawtalk.capture"
        thread.stackSize = 1 << 20
        shared.captureThreadRunning.store(true, ordering: .sequentiallyConsistent)
        thread.start()
        let (seconds, attoseconds) = configuration.startTimeout.components
        let timeout = max(Double(seconds) + Double(attoseconds) / 1e18, 0.1)
        if shared.firstOpenSignal.wait(timeout: .now() + timeout) == .timedOut {
            let device = shared.chosenName.locked { $0 }
            throw StartTimeout(error: .open(device: device, message: "timed out opening the capture stream"))
        }
        if case .failure(let error) = shared.firstOpen.locked({ $0 }) {
            // The thread returns right after reporting; take its finish signal so that a later
            // start waits for its own thread.
            shared.threadFinished.wait()
            shared.firstOpen.locked { $0 = nil }
            throw error
        }
    }

    /// The drain thread: waits for the capture thread's signal (one per frame, or per block while
    /// the consumer is idle), then moves the frames into the pre-roll, the consumer and the
    /// subscribers.
    private static func drain(ring: FrameRing, shared: CaptureShared, interval: Duration) {
        defer { shared.drainFinished.signal() }
        let pause = interval.inSeconds
        while !shared.isStopping {
            _ = shared.framesReady.wait(timeout: .now() + .milliseconds(250))
            let consumer = shared.consumer.locked { $0 }
            while !shared.isStopping, let (samples, stamp) = ring.read().map({ ($0.samples, $0.stamp) }) {
                shared.preRoll.locked { $0.append(samples) }
                let frame = CapturedFrame(
                    samples: samples, timestampNanoseconds: stamp.timestampNanoseconds, sequence: stamp.sequence)
                if let consumer {
                    let level = consumer.consume(frame)
                    shared.idleWakeLevelBits.store(
                        level.map { max($0, .leastNormalMagnitude).bitPattern } ?? 0, ordering: .relaxed)
                }
                shared.publish(frame)
            }
            if pause > 0 { Thread.sleep(forTimeInterval: pause) }
        }
    }
}
