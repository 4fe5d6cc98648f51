import Synchronization

/// A queued item: await its outcome, or cancel it.
///
/// Returned by ``PlaybackController/enqueue(_:)``. Dropping the handle does not cancel the item.
public final class PlaybackHandle: Sendable {
    private let job: PlaybackJob
    private let core: PlaybackCore

    init(job: PlaybackJob, core: PlaybackCore) {
        self.job = job
        self.core = core
    }

    /// The item's kind.
    public var kind: PlaybackItem.Kind { job.kind }

    /// True once the outcome is decided.
    public var isDone: Bool { job.isResolved }

    /// Seconds of the item heard so far: what the playback thread has written minus what the
    /// stream still holds (the latest ``PlaybackController/outputLatency``). For a stream item
    /// that plays its audio as it arrives, this tells which part has reached the speaker.
    public var heardSeconds: Double {
        let latency = core.outputLatencyMicroseconds.load(ordering: .relaxed)
        return max(0, job.writtenSeconds - Double(max(latency, 0)) / 1_000_000)
    }

    /// Waits until the item has finished, was stopped, dropped or failed. Waiting does not
    /// cancel the item when the waiting task is cancelled (``PlaybackController/play(_:)`` does).
    public func outcome() async -> PlaybackOutcome {
        await job.outcome()
    }

    /// Stops the item if it is playing (``PlaybackOutcome/interrupted(interruptedAt:timing:)``)
    /// or drops it if it is queued (``PlaybackOutcome/cancelled``); later items are unaffected.
    public func cancel() {
        core.cancel(job, at: .now)
    }
}
