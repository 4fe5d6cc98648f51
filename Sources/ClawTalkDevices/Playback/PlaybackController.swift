public import ClawTalkAudio
import Synchronization

/// Owns the node's speech and chime playback to one sink: a queue of items played in order by a
/// dedicated real-time thread, with fast stop, pause, ducking, a render reference for echo
/// cancellation and the talk contract's playback watchdog (talk.md §7.6).
///
/// Design:
/// - **A `Sendable` final class, not an actor.** The work happens on a blocking playback
///   `Thread` that cannot await; what it shares with callers (queue, stop and duck flags) sits
///   in `Mutex`/`Atomic` storage it reads without hopping executors. ``stop()``,
///   ``setDucked(_:)`` and ``enqueue(_:)`` are synchronous, so the barge-in fast path takes
///   effect at once from any task or thread, while ``play(_:)`` and
///   ``PlaybackHandle/outcome()`` are `async` and suspend without blocking a thread.
/// - **Items play at their own rate.** The stream is opened in the item's format and the sound
///   server resamples for the sink (architecture.md §3.1); it is reused while consecutive
///   items share a format and sink, reopened when either changes, and closed after
///   ``PlaybackSettings/idleTimeout`` without items. Render chimes at the speech rate to avoid
///   a reopen between a chime and speech.
/// - **Decoding stays outside.** Callers decode clips (`ClipDecoder`) and synthesize speech
///   (`EspeakEngine`); the controller takes ``PlaybackItem`` PCM buffers or streams of them.
///   The module uses `ClawTalkCodecs` only for the soxr `Resampler` of the render reference.
/// - **Stop** drops queued items (``PlaybackOutcome/cancelled``) and makes the thread flush the
///   stream between two 10 ms writes; the current item reports
///   ``PlaybackOutcome/interrupted(interruptedAt:timing:)`` with the seconds heard (written
///   minus the stream latency at the stop). ``lastStopLatency`` and
///   ``PlaybackTiming/stopLatency`` give the time from the call to the flushed stream.
/// - **Watchdog.** Playback must start within ``PlaybackSettings/startTimeout`` of the audio
///   being ready and end within its duration plus ``PlaybackSettings/endSlack`` (or, when the
///   thread fell behind but still writes, the slack after its last write; capped at
///   ``PlaybackSettings/maximumDuration``); time spent waiting for a stream item's source does
///   not count. The thread enforces the limits between writes; if it is stuck inside a blocking
///   pa_simple call, a per-item watchdog task fails the item, abandons that thread (it ends when
///   the call returns) and starts a fresh one for the rest of the queue.
/// - **Render tap.** If given, every written chunk's audio is also delivered, as 16 kHz mono
///   10 ms frames (``renderFormat``), to the tap closure on the playback thread at write time
///   (the sink plays it about ``outputLatency`` later), scaled like the output when ducked. The
///   reference is converted (channel average, soxr resampling) by the item's feeder task ahead
///   of playback, so the thread only copies.
/// - **Errors never crash:** a sink that cannot be opened fails that item with
///   ``AudioDeviceError``; the next item tries to open it again.
public final class PlaybackController: Sendable {
    /// Receives the far-end reference: one 10 ms frame of 16 kHz mono samples per call.
    ///
    /// Called on the playback thread. It must return quickly and must not block, await, log or
    /// allocate per call; copy the frame into a preallocated ring (or the echo canceller's
    /// render queue). The pointer is valid only during the call.
    public typealias RenderTap = @Sendable (UnsafeBufferPointer<Int16>) -> Void

    /// Format of the render-tap frames: 16 kHz mono, like capture.
    public static let renderFormat = AudioFormat.speech

    /// The settings the controller was created with.
    public let settings: PlaybackSettings
    private let core: PlaybackCore

    /// Creates a controller for `sink` (nil = the server's default sink). Nothing connects to
    /// the sound server until the first item.
    public init(sink: String? = nil, settings: PlaybackSettings = PlaybackSettings(), renderTap: RenderTap? = nil) {
        self.settings = settings
        core = PlaybackCore(sink: sink, settings: settings, renderTap: renderTap)
    }

    deinit {
        core.close(at: .now)
    }

    // MARK: - Control

    /// The sink new items play on (nil = default). Changing it applies from the next item.
    public var sink: String? {
        core.sink
    }

    /// Chooses the sink for the items that start from now on (nil = the server's default).
    public func setSink(_ sink: String?) {
        core.sink = sink
    }

    /// Queues `item` behind the others and returns at once; the handle gives its outcome.
    @discardableResult
    public func enqueue(_ item: PlaybackItem) -> PlaybackHandle {
        let now = ContinuousClock.now
        let job = PlaybackJob(kind: item.kind, format: item.format, enqueuedAt: now)
        let handle = PlaybackHandle(job: job, core: core)
        if let problem = Self.validate(item) {
            job.resolve(now: now) { .failed(problem, timing: $0) }
            return handle
        }
        startFeeding(job, item)
        guard core.enqueue(job) else {
            job.resolve(now: now) { .failed(PlaybackError.closed, timing: $0) }
            return handle
        }
        let core = core
        job.attach(Task { await Self.watch(job, core: core) })
        return handle
    }

    /// Plays `item` after the items already queued and returns how it ended. Cancelling the
    /// calling task stops or drops the item. Every failure is reported in the outcome.
    public func play(_ item: PlaybackItem) async -> PlaybackOutcome {
        let handle = enqueue(item)
        return await withTaskCancellationHandler {
            await handle.outcome()
        } onCancel: {
            handle.cancel()
        }
    }

    /// Stops the current item at once and drops all queued ones. Items queued after the call
    /// play normally.
    public func stop() {
        core.stop(at: .now)
    }

    /// Attenuates all playback by ``PlaybackSettings/duckDecibels`` (12 dB) from the next chunk
    /// on, or restores it (for barge-in's fast path and push-to-talk).
    public func setDucked(_ ducked: Bool) {
        core.ducked.store(ducked, ordering: .relaxed)
    }

    /// Pauses playback where it is heard, or plays on (barge-in's pause at speech onset, talk
    /// talk.md §5.5): the playback thread flushes the stream at its next chunk (≈ 10 ms) and moves the
    /// item back by the audio it flushed unheard, so ``setPaused(_:)`` `false` resumes exactly
    /// where the listener stopped hearing it. Queued items wait; no watchdog limit runs while
    /// paused; ``stop()`` still ends the item.
    public func setPaused(_ paused: Bool) {
        if paused {
            guard !core.paused.load(ordering: .acquiring) else { return }
            core.silentSince.store(0, ordering: .releasing)
            core.paused.store(true, ordering: .releasing)
            // Nothing playing (or queued): silent now, even without a playback thread.
            if !core.isBusy { core.markSilent() }
        } else {
            core.paused.store(false, ordering: .releasing)
            core.silentSince.store(0, ordering: .releasing)
        }
        core.wakeWorker()
    }

    /// When the current pause actually silenced playback, in ``MonotonicTime`` nanoseconds (the
    /// clock capture frames are stamped with): the playback thread flushed the stream, or found
    /// nothing playing. Nil while not paused or before the pause took effect (a loaded machine
    /// can take a while); the sink's own buffer still plays for a few milliseconds after it.
    public var silentSinceNanoseconds: UInt64? {
        let stamp = core.silentSince.load(ordering: .acquiring)
        return stamp == 0 ? nil : stamp
    }

    /// True while paused.
    public var isPaused: Bool {
        core.paused.load(ordering: .acquiring)
    }

    /// True while ducked.
    public var isDucked: Bool {
        core.ducked.load(ordering: .relaxed)
    }

    /// True while an item plays or waits in the queue.
    public var isBusy: Bool {
        core.isBusy
    }

    /// Time from the last ``stop()`` (or cancellation) to the flushed stream; nil before any stop.
    public var lastStopLatency: Duration? {
        let nanoseconds = core.lastStopLatencyNanoseconds.load(ordering: .relaxed)
        return nanoseconds < 0 ? nil : .nanoseconds(nanoseconds)
    }

    /// The stream's most recently measured latency (queued audio plus the sink's own), i.e. how
    /// long after a write it is heard; nil before the first measurement.
    public var outputLatency: Duration? {
        let microseconds = core.outputLatencyMicroseconds.load(ordering: .relaxed)
        return microseconds < 0 ? nil : .microseconds(microseconds)
    }

    /// Stops everything and refuses new items (they fail with ``PlaybackError/closed``); the
    /// playback thread closes the stream and ends.
    public func close() {
        core.close(at: .now)
    }

    // MARK: - Feeding and watchdog

    private static func validate(_ item: PlaybackItem) -> PlaybackError? {
        guard case .pcm(let buffer, _) = item, buffer.samples.count % buffer.format.channels != 0 else { return nil }
        return .partialFrame(samples: buffer.samples.count, channels: buffer.format.channels)
    }

    /// Hands the item's audio to the job: a buffer at once (its render reference converted by a
    /// task in one-second blocks), a stream by a task that follows it. Both tasks are
    /// unstructured on purpose: the job holds their handles and cancels them when it resolves.
    private func startFeeding(_ job: PlaybackJob, _ item: PlaybackItem) {
        let core = core
        let wantsReference = core.renderTap != nil
        switch item {
        case .pcm(let buffer, _):
            job.feed(buffer.samples)
            job.completeInput()
            guard wantsReference else { return }
            job.attach(
                Task {
                    guard let reference = try? RenderReference(format: buffer.format) else { return }
                    let block = buffer.format.sampleRate * buffer.format.channels
                    var start = 0
                    while start < buffer.samples.count, !Task.isCancelled {
                        let end = min(start + block, buffer.samples.count)
                        guard let converted = try? reference.convert(buffer.samples[start..<end]) else { return }
                        job.feedReference(converted)
                        start = end
                        await Task.yield()
                    }
                    if let tail = try? reference.finish() { job.feedReference(tail) }
                })
        case .stream(let stream, let format, _):
            job.attach(
                Task {
                    let reference = wantsReference ? try? RenderReference(format: format) : nil
                    do {
                        for try await buffer in stream {
                            guard buffer.format == format else {
                                throw PlaybackError.formatMismatch(expected: format, received: buffer.format)
                            }
                            guard buffer.samples.count % format.channels == 0 else {
                                throw PlaybackError.partialFrame(
                                    samples: buffer.samples.count, channels: format.channels)
                            }
                            job.feed(buffer.samples, reference: try reference?.convert(buffer.samples[...]))
                            core.wake()
                        }
                        if let tail = try reference?.finish() { job.feedReference(tail) }
                        job.completeInput()
                    } catch {
                        job.completeInput(error: Task.isCancelled ? nil : error)
                    }
                    core.wake()
                })
        }
    }

    /// Backs up the playback thread's own limit checks: if a limit (or a stop request) is
    /// `grace` overdue, the thread is stuck in a blocking call; fail or interrupt the item and
    /// replace the thread.
    private static func watch(_ job: PlaybackJob, core: PlaybackCore) async {
        let grace = Duration.milliseconds(250)
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                return
            }
            let now = ContinuousClock.now
            if let stopAt = job.pendingStop, now - stopAt > grace {
                let heard = job.writtenSeconds
                core.abandon(job, now: now) { .interrupted(interruptedAt: heard, timing: $0) }
                return
            }
            if let (deadline, error) = job.deadline(settings: core.settings), now - deadline > grace {
                core.abandon(job, now: now) { .failed(error, timing: $0) }
                return
            }
        }
    }
}
