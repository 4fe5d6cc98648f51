import ClawTalkAudio
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
    let streamDrops = Atomic<Int>(0)
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
    private let subscribers = Mutex<Subscribers>(Subscribers())
    /// The capture thread's first open: nil = not yet, then success or the error.
    let firstOpen = Mutex<Result<Void, any Error>?>(nil)
    let firstOpenSignal = DispatchSemaphore(value: 0)
    /// Signalled once when the capture thread has closed its stream and returned.
    let threadFinished = DispatchSemaphore(value: 0)

    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<CapturedFrame>.Continuation] = [:]
        var closed = false
    }

    init(chosenName: String?, preRoll: PreRollBuffer) {
        self.chosenName = Mutex(chosenName)
        self.preRoll = Mutex(preRoll)
    }

    var isStopping: Bool { stopRequested.load(ordering: .relaxed) }

    func setStatus(_ state: CaptureState, device: String?) {
        status.withLock { $0 = (state, device) }
    }

    func reportFirstOpen(_ result: Result<Void, any Error>) {
        firstOpen.withLock { $0 = result }
        firstOpenSignal.signal()
    }

    // MARK: - Subscribers (consumer side)

    /// Registers a stream; an already-closed engine gets a finished stream.
    func subscribe(bufferingNewest limit: Int) -> AsyncStream<CapturedFrame> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: CapturedFrame.self, bufferingPolicy: .bufferingNewest(max(limit, 1)))
        let id: Int? = subscribers.withLock { subscribers in
            guard !subscribers.closed else { return nil }
            let id = subscribers.next
            subscribers.next += 1
            subscribers.continuations[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        // Set after registering and called outside the lock (finish() may invoke it at once).
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `frame` to every subscriber, counting frames a full stream dropped.
    func publish(_ frame: CapturedFrame) {
        let targets = subscribers.withLock { $0.closed ? [] : Array($0.continuations.values) }
        for continuation in targets {
            if case .dropped = continuation.yield(frame) {
                streamDrops.wrappingAdd(1, ordering: .relaxed)
            }
        }
    }

    /// Finishes every stream; later subscriptions get finished streams.
    func closeSubscribers() {
        let targets = subscribers.withLock { subscribers in
            subscribers.closed = true
            defer { subscribers.continuations.removeAll() }
            return Array(subscribers.continuations.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
