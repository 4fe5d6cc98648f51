import ClawTalkAudio
import ClawTalkSupport
import Synchronization

/// One item on its way through ``PlaybackController``: its audio, its timeline and whoever waits
/// for its outcome.
///
/// Shared by the controller, the item's feeder task, its watchdog task and the playback thread.
/// Everything lives behind one `Mutex` that is held only to copy samples or update a few fields,
/// so the playback thread never waits long for it. The outcome is decided exactly once
/// (``resolve(now:writtenFrames:flushedAt:_:)``); later attempts are ignored.
final class PlaybackJob: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// What one turn of the playback loop got from ``pull(into:maximum:writtenFrames:now:settings:)``.
    struct Pull {
        /// Samples copied into the chunk buffer.
        var count = 0
        /// True when no more audio will come and everything was read.
        var complete = false
        /// Set when a stop was requested.
        var stopRequestedAt: Instant?
        /// Set when a watchdog limit passed.
        var overdue: PlaybackError?
    }

    private struct State {
        var source = SampleQueue()
        var reference = SampleQueue()
        var inputComplete = false
        var inputError: (any Error)?
        var readyAt: Instant?
        var starvedSince: Instant?
        var starvedTotal: Duration = .zero
        /// Set while paused (``pause(rewindingFrames:referenceSamples:at:)``): no limit runs.
        var pausedSince: Instant?
        var writtenFrames = 0
        var timing: PlaybackTiming
        var outcome: PlaybackOutcome?
        var waiters: [CheckedContinuation<PlaybackOutcome, Never>] = []
        var tasks: [Task<Void, Never>] = []
    }

    /// The item's kind.
    let kind: PlaybackItem.Kind
    /// The item's format.
    let format: AudioFormat
    private let state: Mutex<State>

    init(kind: PlaybackItem.Kind, format: AudioFormat, enqueuedAt: Instant) {
        self.kind = kind
        self.format = format
        state = Mutex(State(timing: PlaybackTiming(kind: kind, format: format, enqueuedAt: enqueuedAt)))
    }

    // MARK: - Feeding (controller and feeder task)

    /// Adds source samples (whole frames) and, when a render tap is installed, their reference.
    func feed(_ samples: [Int16], reference: [Int16]? = nil, at now: Instant = .now) {
        state.locked { state in
            guard state.outcome == nil else { return }
            state.source.append(samples)
            if let reference { state.reference.append(reference) }
            // Audio for an item the thread has taken up: the start limit runs from here (the
            // thread may be stuck opening the stream and never pull it).
            if state.timing.dequeuedAt != nil, state.readyAt == nil, !samples.isEmpty { state.readyAt = now }
        }
    }

    /// Adds reference samples only (for a complete buffer whose reference is converted in blocks).
    func feedReference(_ reference: [Int16]) {
        state.locked { state in
            guard state.outcome == nil else { return }
            state.reference.append(reference)
        }
    }

    /// No more source audio will come; `error` is what the source failed with, if anything.
    func completeInput(error: (any Error)? = nil) {
        state.locked { state in
            state.inputComplete = true
            if state.inputError == nil { state.inputError = error }
        }
    }

    /// Keeps `task` (feeder or watchdog) until the outcome is decided, then cancels it.
    func attach(_ task: Task<Void, Never>) {
        let resolved = state.locked { state in
            if state.outcome != nil { return true }
            state.tasks.append(task)
            return false
        }
        if resolved { task.cancel() }
    }

    // MARK: - Playback thread

    /// The playback thread took the item up; if its audio is there, the start limit runs from now.
    func markDequeued(at now: Instant) {
        state.locked { state in
            state.timing.dequeuedAt = now
            if state.source.available > 0 { state.readyAt = now }
        }
    }

    /// The stream was (re)opened for this item, taking `duration`.
    func markStreamOpened(taking duration: Duration) {
        state.locked { $0.timing.streamOpenDuration = duration }
    }

    /// The first chunk was written at `now`.
    func markFirstWrite(at now: Instant) {
        state.locked { $0.timing.firstWriteAt = now }
    }

    /// The sink began playing at `instant`.
    func markStarted(at instant: Instant) {
        state.locked { $0.timing.startedAt = instant }
    }

    /// Copies the next chunk (at most `maximum` samples) and reports stop requests, the end of
    /// the input and watchdog limits; records `writtenFrames` and `lastWriteAt` for the watchdog.
    /// Does not allocate.
    func pull(
        into buffer: UnsafeMutableBufferPointer<Int16>, maximum: Int, writtenFrames: Int,
        lastWriteAt: Instant?, now: Instant, settings: PlaybackSettings
    ) -> Pull {
        state.locked { state in
            var pull = Pull()
            state.writtenFrames = writtenFrames
            if let lastWriteAt { state.timing.lastWriteAt = lastWriteAt }
            if let stop = state.timing.stopRequestedAt {
                pull.stopRequestedAt = stop
                return pull
            }
            if let (deadline, error) = Self.deadline(state, format: format, settings: settings), now >= deadline {
                pull.overdue = error
                return pull
            }
            pull.count = maximum > 0 ? state.source.read(into: buffer, maximum: maximum) : 0
            if pull.count > 0 {
                if state.readyAt == nil { state.readyAt = now }
                if let since = state.starvedSince {
                    // Waiting for the source is not the sink's fault: before the start the start
                    // limit begins anew, after it the end limit is pushed back.
                    if state.timing.startedAt == nil {
                        state.readyAt = now
                    } else {
                        state.starvedTotal += now - since
                    }
                    state.starvedSince = nil
                }
            } else if state.inputComplete {
                pull.complete = true
            } else if state.starvedSince == nil {
                state.starvedSince = now
            }
            return pull
        }
    }

    /// The item pauses where it was heard: `frames` already written but flushed unheard are read
    /// again after ``resume(at:)``, as are `referenceSamples` of the render reference. No
    /// watchdog limit runs while paused. Returns the frames and reference samples rewound.
    func pause(rewindingFrames frames: Int, referenceSamples: Int, at now: Instant) -> (frames: Int, reference: Int) {
        state.locked { state in
            if state.pausedSince == nil { state.pausedSince = now }
            let samples = state.source.rewind(by: frames * format.channels)
            let reference = state.reference.rewind(by: referenceSamples)
            return (samples / format.channels, reference)
        }
    }

    /// The item plays on: the time paused pushes the end limit back.
    func resume(at now: Instant) {
        state.locked { state in
            guard let since = state.pausedSince else { return }
            if state.timing.startedAt == nil {
                if state.readyAt != nil { state.readyAt = now }
            } else {
                state.starvedTotal += now - since
            }
            state.pausedSince = nil
        }
    }

    /// Copies up to `maximum` reference samples; returns how many.
    func takeReference(into buffer: UnsafeMutableBufferPointer<Int16>, maximum: Int) -> Int {
        state.locked { $0.reference.read(into: buffer, maximum: maximum) }
    }

    /// The error the source failed with, once the input is complete.
    var inputError: (any Error)? {
        state.locked { $0.inputError }
    }

    // MARK: - Stop and watchdog (any thread)

    /// Asks the playback thread to stop this item; false if its outcome is already decided.
    @discardableResult
    func requestStop(at now: Instant) -> Bool {
        state.locked { state in
            guard state.outcome == nil else { return false }
            if state.timing.stopRequestedAt == nil { state.timing.stopRequestedAt = now }
            return true
        }
    }

    /// When the item must be done with its current phase, and the error if it is not; nil while
    /// no limit runs (queued, waiting for the source, decided).
    func deadline(settings: PlaybackSettings) -> (Instant, PlaybackError)? {
        state.locked { Self.deadline($0, format: format, settings: settings) }
    }

    /// When a stop was requested and not yet carried out.
    var pendingStop: Instant? {
        state.locked { $0.outcome == nil ? $0.timing.stopRequestedAt : nil }
    }

    /// Seconds written so far (as last reported by the playback thread).
    var writtenSeconds: Double {
        state.locked { Double($0.writtenFrames) / Double(format.sampleRate) }
    }

    private static func deadline(
        _ state: State, format: AudioFormat, settings: PlaybackSettings
    ) -> (Instant, PlaybackError)? {
        guard state.outcome == nil, state.starvedSince == nil, state.pausedSince == nil, let readyAt = state.readyAt
        else { return nil }
        guard let startedAt = state.timing.startedAt else {
            return (readyAt + settings.startTimeout, .startTimedOut(milliseconds: milliseconds(settings.startTimeout)))
        }
        let received = Duration.microseconds(
            Int64(state.source.appended / format.channels) * 1_000_000 / Int64(format.sampleRate))
        let limit = min(received + settings.endSlack, settings.maximumDuration)
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) * 1e-18
        var end = startedAt + state.starvedTotal + limit
        if let lastWrite = state.timing.lastWriteAt {
            // A thread that falls behind (a loaded machine: the sink underruns and plays later)
            // is late, not stuck: while it still writes, the limit runs from its last write. A
            // stuck sink blocks the write, so the last write stops moving and the limit passes.
            end = min(
                max(end, lastWrite + settings.endSlack), startedAt + state.starvedTotal + settings.maximumDuration)
        }
        return (end, .overran(limitSeconds: seconds))
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }

    // MARK: - Outcome

    /// Decides the outcome (once): `make` receives the final timing. Resumes every waiter and
    /// cancels the attached tasks. Returns false if the outcome was already decided.
    @discardableResult
    func resolve(
        now: Instant, writtenFrames: Int? = nil, flushedAt: Instant? = nil,
        _ make: (PlaybackTiming) -> PlaybackOutcome
    ) -> Bool {
        let decided: (PlaybackOutcome, [CheckedContinuation<PlaybackOutcome, Never>], [Task<Void, Never>])? =
            state.locked { state in
                guard state.outcome == nil else { return nil }
                if let writtenFrames { state.writtenFrames = writtenFrames }
                state.timing.writtenSeconds = Double(state.writtenFrames) / Double(format.sampleRate)
                state.timing.flushedAt = flushedAt
                state.timing.endedAt = now
                let outcome = make(state.timing)
                state.outcome = outcome
                defer {
                    state.waiters = []
                    state.tasks = []
                }
                return (outcome, state.waiters, state.tasks)
            }
        guard let (outcome, waiters, tasks) = decided else { return false }
        for waiter in waiters { waiter.resume(returning: outcome) }
        for task in tasks { task.cancel() }
        return true
    }

    /// True once the outcome is decided.
    var isResolved: Bool {
        state.locked { $0.outcome != nil }
    }

    /// Waits for the outcome (returns at once if it is decided).
    func outcome() async -> PlaybackOutcome {
        await withCheckedContinuation { continuation in
            let ready: PlaybackOutcome? = state.locked { state in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
