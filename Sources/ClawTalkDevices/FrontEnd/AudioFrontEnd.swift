import ClawTalkAudio
import ClawTalkSupport
import Synchronization

/// The one consumer of captured audio: echo cancellation against the node's own playback, the
/// STT clean-up, voice activity and the energy gate, fanned out to every listener (wake word,
/// Talk, push-to-talk) as ``FrontEndFrame``s.
///
/// Signal path, per capture frame (20 ms), in 10 ms steps:
/// 1. **Far end.** Every far-end frame the playback thread wrote up to this step's capture time
///    is fed to the echo canceller (``AudioProcessor/processRender(_:)``); when the far end has
///    been idle for 50 ms, one frame of silence instead. Far-end frames arrive through
///    ``renderTap`` (give it to ``PlaybackController``), stamped with the monotonic time of the
///    write, through a lock-free ring (``FarEndBuffer``): the tap never blocks or allocates.
/// 2. **Echo stage** (APM 1: AEC or AECM + high-pass, nothing else) with the echo delay below.
///    Its output is ``FrontEndFrame/aec``, the wake-word input (architecture.md §7.2: feed the
///    wake engine the AEC output, not the NS output). The legacy AEC delays its output by about
///    7 ms (112 samples at 16 kHz) relative to its input.
/// 3. **Clean stage** (APM 2, only when noise suppression or gain control is on) on the AEC
///    output: ``FrontEndFrame/clean``, the STT input. Two instances because one APM cannot give
///    both an un-suppressed and a suppressed signal.
/// 4. **Voice activity** on the AEC output: ``SpeechDetector`` (per-band SNR over a
///    minimum-statistics floor, with the energy gate's −60 dBFS minimum), so stationary noise is
///    not speech. The talk.md §5.4 ``EnergyGate`` runs beside it for endpointing (``FrontEndFrame/rms``,
///    ``FrontEndFrame/noiseFloor``, ``FrontEndFrame/energyGateSpeech``).
/// 5. **Half-duplex** (talk.md §5.5): without echo control (``echoControlled`` false),
///    ``FrontEndFrame/isSpeech`` is false while the far end plays and for
///    ``FrontEndSettings/echoTail`` (300 ms) after its echo.
///
/// Echo delay: the tap stamps a frame when the playback thread has written it; the sink plays it
/// one output latency later (`pa_simple_get_latency`: queued audio plus the sink's own), and the
/// capture read that returns it comes one capture latency after that. Capture frames are stamped
/// when their read returns, so pairing far-end and capture frames by stamp leaves
/// `outputLatency + captureLatency` between a far-end frame and its echo. The canceller is told
/// that estimate minus ``FrontEndSettings/echoDelayHeadroom`` (10 ms): the playback controller's
/// measured ``PlaybackController/outputLatency`` (see ``attach(_:)``; until measured,
/// ``FrontEndSettings/assumedOutputLatency``) plus ``FrontEndSettings/captureLatency`` (default 0).
/// How it was chosen, on the PulseAudio rig (null sink, its monitor captured in 20 ms reads):
/// cross-correlating far end and capture gave an echo path of 30–35 ms against a measured output
/// latency of 32–35 ms, i.e. a capture latency of about 0 (a null sink hands audio to its monitor
/// as it renders it). Telling the canceller 13 ms too much cut the ERLE to 16–18 dB; 10 ms too
/// little gave 35–70 dB, because its filter covers echoes that come later than stated, not
/// earlier; hence the headroom. Real sound cards add their source latency (a few ms to tens of
/// ms), which the headroom, the extended filter and the delay-agnostic mode (on by default)
/// absorb; set ``FrontEndSettings/captureLatency`` for a microphone with a large latency. The
/// device test `echoDelayMatchesTheMeasuredEchoPath` checks the estimate against the measured
/// echo path (within 10 ms) and that the delay handed over never exceeds it.
///
/// Threads and tasks: ``start(on:)`` (the node) runs the processing on the capture engine's drain
/// thread, with no task hop per frame, and lets the engine batch quiet frames once nothing has
/// happened for a second (no speech, no echo, no far end: ``CaptureFrameConsumer``); ``start(_:)``
/// runs a task that processes any frame stream; ``process(_:)`` does one frame synchronously
/// (tests, files). The processing state sits behind a lock held for the processing of one frame.
/// Lifecycle: one start, ``stop()`` once; the ``frames()`` streams finish at stop or when the
/// capture ends.
public final class AudioFrontEnd: Sendable {
    /// The settings this front end was created with.
    public let settings: FrontEndSettings

    private let farEnd: FarEndBuffer
    private let shared: Shared
    private let lifecycle = Mutex<Lifecycle>(.idle)

    private enum Lifecycle {
        case idle
        case running(Task<Void, Never>)
        case attached(CaptureEngine)
        case stopped
    }

    /// What the processing task (or the capture engine's drain thread) shares with the front end.
    private final class Shared: CaptureFrameConsumer {
        let core: Mutex<FrontEndProcessor>
        /// Frames to the subscribers, each with its own buffer (`streamBufferFrames`), drops counted.
        let fanout = EventBroadcast<FrontEndFrame>(bufferingNewest: 1)
        let preRoll: Mutex<PreRollBuffer>
        let errors = Atomic<Int>(0)
        /// Boxed: a closure read from a `Mutex` per frame would nest thunks (see ``ClosureBox``).
        let outputLatency = Mutex<ClosureBox<@Sendable () -> Duration?>?>(nil)

        init(core: sending FrontEndProcessor, preRollMilliseconds: Int) {
            self.core = Mutex(core)
            preRoll = Mutex(PreRollBuffer(milliseconds: preRollMilliseconds, format: .speech))
        }

        func consume(_ frame: CapturedFrame) -> Double? {
            _ = try? AudioFrontEnd.process(frame, shared: self)
            return core.locked { $0.idleWakeLevel }
        }

        func captureEnded() {
            fanout.finish()
        }
    }

    /// Creates the processing stages; throws ``AudioDeviceError/processing(_:)`` when the audio
    /// library rejects the settings. Nothing runs until ``start(_:)`` or ``process(_:)``.
    public init(settings: FrontEndSettings = FrontEndSettings()) throws {
        self.settings = settings
        let farEnd = FarEndBuffer(
            capacity: max(settings.farEndCapacity, 2),
            frameSamples: PlaybackController.renderFormat.sampleCount(milliseconds: 10))
        self.farEnd = farEnd
        shared = Shared(
            core: try FrontEndProcessor(settings: settings, farEnd: farEnd),
            preRollMilliseconds: max(settings.preRollMilliseconds, 300))
    }

    deinit {
        switch lifecycle.locked({ $0 }) {
        case .running(let task): task.cancel()
        case .attached(let engine): engine.detach(shared)
        case .idle, .stopped: break
        }
        shared.fanout.finish()
    }

    // MARK: - Far end

    /// The far-end reference input for ``PlaybackController`` (`renderTap:`): stamps each 10 ms
    /// frame with the monotonic time and copies it into a preallocated lock-free ring. Safe on
    /// the playback thread: it never blocks, locks or allocates.
    public var renderTap: PlaybackController.RenderTap {
        { [farEnd] frame in farEnd.push(frame, at: MonotonicTime.nanoseconds()) }
    }

    /// Feeds one far-end frame (10 ms, 16 kHz mono) written at `timestampNanoseconds`
    /// (``MonotonicTime``); ``renderTap`` calls this with the current time.
    public func pushFarEnd(_ frame: UnsafeBufferPointer<Int16>, timestampNanoseconds: UInt64) {
        farEnd.push(frame, at: timestampNanoseconds)
    }

    /// Takes the echo delay's output part from `playback`'s measured latency from now on (the
    /// controller is held weakly).
    public func attach(_ playback: PlaybackController) {
        attach(outputLatency: { [weak playback] in playback?.outputLatency })
    }

    /// Takes the echo delay's output part from `source`, called once per frame.
    public func attach(outputLatency source: @escaping @Sendable () -> Duration?) {
        let box = ClosureBox(source)
        shared.outputLatency.locked { $0 = box }
    }

    // MARK: - Processing

    /// Processes `engine`'s frames on its drain thread (``CaptureEngine/attach(_:)``); the
    /// ``frames()`` streams finish when the engine stops. Starting a running front end does
    /// nothing; a stopped one throws ``AudioDeviceError/io(_:)``.
    public func start(on engine: CaptureEngine) throws {
        let attach = try lifecycle.locked { lifecycle -> Bool in
            switch lifecycle {
            case .running, .attached: return false
            case .stopped: throw AudioDeviceError.io("the audio front end was stopped; create a new one")
            case .idle:
                lifecycle = .attached(engine)
                return true
            }
        }
        if attach { engine.attach(shared) }
    }

    /// Starts processing `capture` (e.g. ``CaptureEngine/frames()``) on a task; the ``frames()``
    /// streams finish when it ends. Starting a running front end does nothing; a stopped one
    /// throws ``AudioDeviceError/io(_:)``.
    public func start(_ capture: AsyncStream<CapturedFrame>) throws {
        try lifecycle.locked { lifecycle in
            switch lifecycle {
            case .running, .attached: return
            case .stopped: throw AudioDeviceError.io("the audio front end was stopped; create a new one")
            case .idle: break
            }
            let task = Task.detached(priority: .high) { [shared] in
                for await frame in capture {
                    if Task.isCancelled { break }
                    _ = try? Self.process(frame, shared: shared)
                }
                shared.fanout.finish()
            }
            lifecycle = .running(task)
        }
    }

    /// Stops processing and finishes every ``frames()`` stream. Calling it again does nothing.
    public func stop() {
        let previous = lifecycle.locked { lifecycle in
            defer { lifecycle = .stopped }
            return lifecycle
        }
        switch previous {
        case .running(let task): task.cancel()
        case .attached(let engine): engine.detach(shared)
        case .idle, .stopped: break
        }
        shared.fanout.finish()
    }

    /// Processes one capture frame now and publishes the result, like the task of ``start(_:)``
    /// does for each frame. Throws ``AudioDeviceError/processing(_:)`` for a frame that is not
    /// a whole number of 10 ms.
    @discardableResult
    public func process(_ frame: CapturedFrame) throws -> FrontEndFrame {
        try Self.process(frame, shared: shared)
    }

    private static func process(_ frame: CapturedFrame, shared: Shared) throws -> FrontEndFrame {
        let latencySource = shared.outputLatency.locked { $0 }
        let outputLatency = latencySource?.call()
        let result: FrontEndFrame
        do {
            result = try shared.core.locked { try $0.process(frame, outputLatency: outputLatency) }
        } catch {
            shared.errors.wrappingAdd(1, ordering: .relaxed)
            throw error
        }
        shared.preRoll.locked { $0.append(result.aec) }
        shared.fanout.publish(result)
        return result
    }

    // MARK: - Output

    /// A new stream of processed frames, buffering the newest
    /// ``FrontEndSettings/streamBufferFrames`` (≈ 500 ms). Subscribe before ``start(_:)`` to
    /// miss nothing; it finishes at ``stop()`` (at once if already stopped).
    public func frames() -> AsyncStream<FrontEndFrame> {
        shared.fanout.subscribe(bufferingNewest: settings.streamBufferFrames)
    }

    /// The most recent ``FrontEndSettings/preRollMilliseconds`` (at least 300 ms) of the AEC
    /// signal, oldest first.
    public func preRoll() -> [Int16] {
        shared.preRoll.locked { $0.snapshot() }
    }

    /// True when echo is under control (an echo canceller runs, or the output is isolated):
    /// barge-in may listen during playback. False means half-duplex (talk.md §5.5).
    public var echoControlled: Bool { settings.echoControlled }

    /// A snapshot of the counters.
    public var stats: FrontEndStats {
        let counts = shared.core.locked { core in
            (
                core.framesProcessed, core.farEndFramesFed, core.silenceFramesFed, core.staleFarEndFrames,
                core.lastEchoDelayMilliseconds, core.bypassedFrames
            )
        }
        return FrontEndStats(
            frames: counts.0, errors: shared.errors.load(ordering: .relaxed), farEndFrames: farEnd.accepted,
            farEndDropped: farEnd.dropped, farEndFed: counts.1, silenceFed: counts.2, farEndStale: counts.3,
            streamDrops: shared.fanout.drops, echoDelayMilliseconds: counts.4, idleBypassFrames: counts.5)
    }
}
