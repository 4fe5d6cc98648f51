import ClawTalkAudio
import ClawTalkSupport
import Dispatch
import Foundation
import Synchronization

/// The state ``PlaybackController`` shares with its playback thread: the queue, the current
/// item, the sink name and which thread is the live one.
///
/// A `final class` of `Mutex`/`Atomic` stored properties. The playback thread holds a strong
/// reference (the controller does not, beyond its own), so dropping the controller closes the
/// queue and lets the thread end.
final class PlaybackCore: Sendable {
    /// What the playback thread should do next.
    enum Next {
        /// Play this item on this sink (nil = default sink).
        case play(PlaybackJob, sink: String?)
        /// Nothing queued: wait for a wake-up.
        case wait
        /// This thread is no longer wanted: close the stream and end.
        case exit
    }

    private struct State {
        var pending: [PlaybackJob] = []
        var current: PlaybackJob?
        var sink: String?
        var worker: WorkerHandle?
        var generation = 0
        var closed = false
    }

    let settings: PlaybackSettings
    let renderTap: PlaybackController.RenderTap?
    /// Ducking requested (read by the playback thread once per chunk).
    let ducked = Atomic<Bool>(false)
    /// Pause requested (read by the playback thread between chunks).
    let paused = Atomic<Bool>(false)
    /// When the requested pause took effect (``MonotonicTime`` nanoseconds: the stream flushed,
    /// or nothing was playing); 0 while not paused or not yet silent.
    let silentSince = Atomic<UInt64>(0)
    /// Last measured stop latency in nanoseconds, −1 before the first stop.
    let lastStopLatencyNanoseconds = Atomic<Int64>(-1)
    /// Latest stream latency in microseconds, −1 before the first measurement.
    let outputLatencyMicroseconds = Atomic<Int64>(-1)
    private let state: Mutex<State>

    init(sink: String?, settings: PlaybackSettings, renderTap: PlaybackController.RenderTap?) {
        self.settings = settings
        self.renderTap = renderTap
        state = Mutex(State(sink: sink))
    }

    // MARK: - Controller side

    /// The sink items are played on (nil = the server's default).
    var sink: String? {
        get { state.locked { $0.sink } }
        set { state.locked { $0.sink = newValue } }
    }

    /// True while an item plays or waits.
    var isBusy: Bool {
        state.locked { $0.current != nil || !$0.pending.isEmpty }
    }

    /// Appends `job` to the queue (starting a playback thread if none runs); false when closed.
    func enqueue(_ job: PlaybackJob) -> Bool {
        let wake: WorkerHandle? = state.locked { state in
            guard !state.closed else { return nil }
            state.pending.append(job)
            if let worker = state.worker { return worker }
            return startWorker(&state)
        }
        wake?.wake.signal()
        return wake != nil
    }

    /// Marks the pause as in effect now, unless it already is (or was lifted): the playback
    /// thread calls this once it flushed the stream, or when it found nothing to play.
    func markSilent() {
        guard paused.load(ordering: .acquiring) else { return }
        _ = silentSince.compareExchange(
            expected: 0, desired: MonotonicTime.nanoseconds(), ordering: .acquiringAndReleasing)
    }

    /// Wakes the playback thread (a pause or resume takes effect without waiting for a timeout).
    func wakeWorker() {
        state.locked { $0.worker }?.wake.signal()
    }

    /// Stops the current item and drops every queued one.
    func stop(at now: ContinuousClock.Instant) {
        let (dropped, worker) = state.locked { state in
            state.current?.requestStop(at: now)
            defer { state.pending = [] }
            return (state.pending, state.worker)
        }
        for job in dropped { job.resolve(now: now) { _ in .cancelled } }
        worker?.wake.signal()
    }

    /// Stops `job` if it plays, drops it if it waits.
    func cancel(_ job: PlaybackJob, at now: ContinuousClock.Instant) {
        let (queued, worker) = state.locked { state in
            if let index = state.pending.firstIndex(where: { $0 === job }) {
                state.pending.remove(at: index)
                return (true, state.worker)
            }
            if state.current === job { job.requestStop(at: now) }
            return (false, state.worker)
        }
        if queued { job.resolve(now: now) { _ in .cancelled } }
        worker?.wake.signal()
    }

    /// Wakes the playback thread (new audio for a waiting stream item, a stop).
    func wake() {
        state.locked { $0.worker }?.wake.signal()
    }

    /// Gives up on a playback thread stuck in a blocking call while playing `job`: the thread is
    /// told to end when the call returns, `job` gets `outcome`, and a new thread takes the queue.
    func abandon(_ job: PlaybackJob, now: ContinuousClock.Instant, outcome: (PlaybackTiming) -> PlaybackOutcome) {
        let replacement: WorkerHandle? = state.locked { state in
            guard state.current === job, let stuck = state.worker else { return nil }
            stuck.abandoned.store(true, ordering: .releasing)
            stuck.wake.signal()
            state.current = nil
            state.worker = nil
            return state.pending.isEmpty || state.closed ? nil : startWorker(&state)
        }
        job.resolve(now: now, outcome)
        replacement?.wake.signal()
    }

    /// Closes the queue: drops queued items, stops the current one, ends the thread when idle.
    func close(at now: ContinuousClock.Instant) {
        let (dropped, worker) = state.locked { state in
            state.closed = true
            state.current?.requestStop(at: now)
            defer { state.pending = [] }
            return (state.pending, state.worker)
        }
        for job in dropped { job.resolve(now: now) { _ in .cancelled } }
        worker?.wake.signal()
    }

    // MARK: - Playback thread side

    /// The next thing for the thread with `handle` to do; a finished current item is cleared.
    func next(for handle: WorkerHandle) -> Next {
        state.locked { state in
            guard state.worker === handle else { return .exit }
            state.current = nil
            guard !state.pending.isEmpty else { return state.closed ? .exit : .wait }
            let job = state.pending.removeFirst()
            state.current = job
            return .play(job, sink: state.sink)
        }
    }

    /// Ends the thread with `handle` if nothing is queued (it was idle for the idle timeout).
    func retire(_ handle: WorkerHandle) -> Bool {
        state.locked { state in
            guard state.worker === handle else { return true }
            guard state.pending.isEmpty else { return false }
            state.worker = nil
            return true
        }
    }

    private func startWorker(_ state: inout State) -> WorkerHandle {
        state.generation += 1
        let handle = WorkerHandle(generation: state.generation)
        state.worker = handle
        let thread = Thread { [self] in
            PlaybackWorker(core: self, handle: handle).run()
        }
        thread.name = "clawtalk.playback.\(handle.generation)"
        thread.qualityOfService = .userInteractive
        thread.start()
        return handle
    }
}

/// The controller's grip on one playback thread: its wake-up semaphore and the flag that tells
/// it it has been replaced.
final class WorkerHandle: Sendable {
    /// Counts from 1 per controller; names the thread.
    let generation: Int
    /// Signalled for new items, new stream audio, stops and shutdown.
    let wake = DispatchSemaphore(value: 0)
    /// Set when the watchdog replaced this thread (it was stuck in a blocking call).
    let abandoned = Atomic<Bool>(false)

    init(generation: Int) {
        self.generation = generation
    }
}
