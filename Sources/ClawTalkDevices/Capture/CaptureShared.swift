import ClawTalkAudio
import ClawTalkSupport
import Dispatch
import Synchronization

/// State shared by a ``CaptureEngine``, its capture thread, its device watcher and its consumer
/// task. The capture thread's per-frame path touches only the atomics; the mutexes change on
/// device events (open, fail, switch) or belong to the consumer side, and are held only for a copy.
final class CaptureShared: Sendable {
    /// Set once by stop (or deinit); every loop checks it.
    let stopRequested = Atomic<Bool>(false)
    let frames = Atomic<Int>(0)
    let readErrors = Atomic<Int>(0)
    let openFailures = Atomic<Int>(0)
    let reopens = Atomic<Int>(0)
    /// `Double.bitPattern` of the latest frame's RMS and peak (full scale 1.0).
    let rmsBits = Atomic<UInt64>(0)
    let peakBits = Atomic<UInt64>(0)
    /// The watcher's verdict on the chosen source (true until proven otherwise); the capture
    /// thread clears it when the chosen source fails.
    let chosenAvailable = Atomic<Bool>(true)
    /// The chosen source's current server name (re-resolved by the watcher).
    let chosenName: Mutex<String?>
    let status = Mutex<(state: CaptureState, device: String?)>((.idle, nil))
    let preRoll: Mutex<PreRollBuffer>
    /// The consumer-side streams (`CaptureEngine.frames()`), newest frames kept (each subscription
    /// sets its own buffer), drops counted.
    let fanout = EventBroadcast<CapturedFrame>(bufferingNewest: 1)
    /// The capture thread's first open: nil = not yet, then success or the error.
    let firstOpen = Mutex<Result<Void, any Error>?>(nil)
    let firstOpenSignal = DispatchSemaphore(value: 0)
    /// Signalled once when the capture thread has closed its stream and returned.
    let threadFinished = DispatchSemaphore(value: 0)
    /// Whether a capture thread runs (set before it starts, cleared as it returns).
    let captureThreadRunning = Atomic<Bool>(false)
    /// Signalled by the capture thread after each frame it writes to the ring (and by stop): the
    /// drain thread sleeps on it instead of polling. A signal without a waiter is an atomic add.
    let framesReady = DispatchSemaphore(value: 0)
    /// Signalled once when the drain thread has delivered its last frame and returned.
    let drainFinished = DispatchSemaphore(value: 0)
    /// Signalled by stop: the device watcher sleeps on it between checks.
    let watcherWake = DispatchSemaphore(value: 0)
    /// The synchronous consumer run on the drain thread (``CaptureEngine/attach(_:)``).
    let consumer = Mutex<(any CaptureFrameConsumer)?>(nil)
    /// `Double.bitPattern` of the RMS below which the capture thread does not wake the drain
    /// thread (the consumer is idle); 0 = wake it for every frame.
    let idleWakeLevelBits = Atomic<UInt64>(0)

    init(chosenName: String?, preRoll: PreRollBuffer) {
        self.chosenName = Mutex(chosenName)
        self.preRoll = Mutex(preRoll)
    }

    var isStopping: Bool { stopRequested.load(ordering: .relaxed) }

    func setStatus(_ state: CaptureState, device: String?) {
        status.locked { $0 = (state, device) }
    }

    func reportFirstOpen(_ result: Result<Void, any Error>) {
        firstOpen.locked { $0 = result }
        firstOpenSignal.signal()
    }

    // MARK: - Subscribers (consumer side)

    /// Registers a stream; an already-closed engine gets a finished stream.
    func subscribe(bufferingNewest limit: Int) -> AsyncStream<CapturedFrame> {
        fanout.subscribe(bufferingNewest: limit)
    }

    /// Hands `frame` to every subscriber, counting frames a full stream dropped.
    func publish(_ frame: CapturedFrame) {
        fanout.publish(frame)
    }

    /// Finishes every stream; later subscriptions get finished streams.
    func closeSubscribers() {
        fanout.finish()
    }
}
