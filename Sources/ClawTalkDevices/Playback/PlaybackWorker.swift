import ClawTalkAudio
import Dispatch
import Synchronization

/// The body of one playback thread: takes items from ``PlaybackCore`` in order and writes them
/// to a ``PulsePlaybackStream`` in chunks of ``PlaybackSettings/chunkMilliseconds``.
///
/// Thread rules: everything here runs on the one thread that created the worker, which alone
/// opens, writes, flushes, drains and closes the pa_simple stream (pa_simple is not
/// thread-safe). Per chunk it does not allocate, log or await: it copies samples out of the job
/// under the job's short lock, scales them for ducking in a buffer allocated when the stream
/// opens, writes them, and hands 10 ms reference frames to the render tap. Between chunks it
/// looks at the job's stop flag, so a stop waits for at most one write (≈ one chunk) plus the
/// flush. Allocation happens only around items (opening a stream, releasing a finished job).
final class PlaybackWorker {
    private typealias Instant = ContinuousClock.Instant

    private let core: PlaybackCore
    private let handle: WorkerHandle
    private let settings: PlaybackSettings
    private let clock = ContinuousClock()

    private var stream: PulsePlaybackStream?
    private var streamSink: String?
    /// One chunk of the open stream's format.
    private var chunk = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 0)
    private var chunkSamples = 0
    /// Reference samples on their way to the tap, and one gain-scaled tap frame.
    private let staging = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 4096)
    private let tapFrame: UnsafeMutableBufferPointer<Int16>
    private let zeros: UnsafeMutableBufferPointer<Int16>
    private var tapChunker: FrameChunker
    private var referenceDelivered = 0
    /// Gain of the last chunk (ramps to the new target over one chunk to avoid clicks).
    private var gain: Float = 1

    init(core: PlaybackCore, handle: WorkerHandle) {
        self.core = core
        self.handle = handle
        settings = core.settings
        let frame = PlaybackController.renderFormat.sampleCount(milliseconds: 10)
        tapChunker = FrameChunker(frameSize: frame)
        tapFrame = .allocate(capacity: frame)
        zeros = .allocate(capacity: frame)
        zeros.initialize(repeating: 0)
    }

    deinit {
        stream?.close()
        chunk.deallocate()
        staging.deallocate()
        tapFrame.deallocate()
        zeros.deallocate()
    }

    /// Plays items until the controller closes, the thread idles out or it is abandoned.
    func run() {
        while !isAbandoned {
            switch core.next(for: handle) {
            case .play(let job, let sink):
                play(job, sink: sink)
            case .wait:
                // Nothing plays: a pause is silent at once.
                core.markSilent()
                let timeout = DispatchTime.now() + .nanoseconds(Int(nanoseconds(settings.idleTimeout)))
                if handle.wake.wait(timeout: timeout) == .timedOut, core.retire(handle) { return }
            case .exit:
                return
            }
        }
    }

    private var isAbandoned: Bool { handle.abandoned.load(ordering: .acquiring) }

    // MARK: - One item

    private func play(_ job: PlaybackJob, sink: String?) {
        let format = job.format
        job.markDequeued(at: clock.now)
        if let stopAt = job.pendingStop {
            job.resolve(now: clock.now, writtenFrames: 0, flushedAt: clock.now) {
                .interrupted(interruptedAt: 0, timing: $0)
            }
            recordStopLatency(from: stopAt)
            return
        }
        do {
            try openStream(format: format, sink: sink, for: job)
        } catch {
            job.resolve(now: clock.now, writtenFrames: 0) { .failed(error, timing: $0) }
            return
        }
        guard let stream else { return }
        referenceDelivered = 0
        var written = 0
        var lastWrite: Instant?
        var started = false
        var chunksSinceLatency = 0
        var paused = false
        var tailEnd = clock.now

        playing: while true {
            // Write the audio as it becomes available.
            while true {
                if isAbandoned { return }
                if core.paused.load(ordering: .acquiring) {
                    if !paused {
                        pause(job, written: &written)
                        paused = true
                    }
                    // Paused: a stop still ends the item; nothing else happens.
                    let pull = job.pull(
                        into: chunk, maximum: 0, writtenFrames: written, lastWriteAt: lastWrite, now: clock.now,
                        settings: settings)
                    if ended(job, by: pull, written: written) { return }
                    _ = handle.wake.wait(timeout: .now() + .milliseconds(5))
                    continue
                }
                if paused {
                    job.resume(at: clock.now)
                    paused = false
                }
                let pull = job.pull(
                    into: chunk, maximum: chunkSamples, writtenFrames: written, lastWriteAt: lastWrite,
                    now: clock.now, settings: settings)
                if ended(job, by: pull, written: written) { return }
                if pull.count > 0 {
                    applyGain(count: pull.count, channels: format.channels)
                    do {
                        try stream.write(UnsafeBufferPointer(rebasing: chunk[0..<pull.count]))
                    } catch {
                        fail(job, written: written, error: error)
                        return
                    }
                    let now = clock.now
                    if lastWrite == nil { job.markFirstWrite(at: now) }
                    lastWrite = now
                    written += pull.count / format.channels
                    chunksSinceLatency += 1
                    if !started || chunksSinceLatency >= 10 {
                        chunksSinceLatency = 0
                        started = checkStarted(job, written: written, started: started, now: now)
                    }
                    deliverReference(job, upTo: written, format: format)
                } else if pull.complete {
                    break
                } else {
                    // Waiting for the source; a feed, stop or close signals the semaphore.
                    _ = handle.wake.wait(timeout: .now() + .milliseconds(5))
                }
            }

            // Everything is written: wait until the sound server has played it, still honouring
            // stop and pause (a pause moves the item back: the write loop takes it up again).
            let queued = (try? stream.latencyMicroseconds()).map { Int64(clamping: $0) } ?? 0
            tailEnd = clock.now + .microseconds(queued)
            while clock.now < tailEnd {
                if isAbandoned { return }
                if core.paused.load(ordering: .acquiring) {
                    pause(job, written: &written)
                    paused = true
                    continue playing
                }
                let pull = job.pull(
                    into: chunk, maximum: 0, writtenFrames: written, lastWriteAt: lastWrite, now: clock.now,
                    settings: settings)
                if ended(job, by: pull, written: written) { return }
                if !started { started = checkStarted(job, written: written, started: false, now: clock.now) }
                let remaining = tailEnd - clock.now
                _ = handle.wake.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds(remaining), 5_000_000))))
            }
            break
        }
        do {
            try stream.drain()
        } catch {
            fail(job, written: written, error: error)
            return
        }
        if isAbandoned { return }
        if !started { job.markStarted(at: tailEnd) }
        deliverReference(job, upTo: nil, format: format)
        padTapFrame()
        let seconds = Double(written) / Double(format.sampleRate)
        let sourceError = job.inputError
        job.resolve(now: clock.now, writtenFrames: written) { timing in
            if let sourceError { return .failed(sourceError, timing: timing) }
            return .finished(playedSeconds: seconds, timing: timing)
        }
    }

    /// Carries out a stop request or a passed limit that `pull` reported; true if the item ended.
    private func ended(_ job: PlaybackJob, by pull: PlaybackJob.Pull, written: Int) -> Bool {
        if let stopAt = pull.stopRequestedAt {
            interrupt(job, written: written, stopRequestedAt: stopAt)
            return true
        }
        if let error = pull.overdue {
            abort(job, written: written, error: error)
            return true
        }
        return false
    }

    /// Stop requested: measure what is still queued, flush it, report what was heard.
    private func interrupt(_ job: PlaybackJob, written: Int, stopRequestedAt: Instant) {
        let queued = (try? stream?.latencyMicroseconds()).flatMap { $0 } ?? 0
        do {
            try stream?.flush()
        } catch {
            closeStream()
        }
        let flushedAt = clock.now
        recordStopLatency(from: stopRequestedAt, flushedAt: flushedAt)
        padTapFrame()
        let heard = max(0, Double(written) / Double(job.format.sampleRate) - Double(queued) / 1_000_000)
        job.resolve(now: flushedAt, writtenFrames: written, flushedAt: flushedAt) {
            .interrupted(interruptedAt: heard, timing: $0)
        }
    }

    /// Pause requested: flush what is queued unheard and move the item (and its reference) back
    /// by that much, so it resumes where it was heard, fading in over the first chunk.
    private func pause(_ job: PlaybackJob, written: inout Int) {
        let queued = (try? stream?.latencyMicroseconds()).flatMap { $0 }.map { Int64(clamping: $0) } ?? 0
        do {
            try stream?.flush()
        } catch {
            closeStream()
        }
        let rate = Int64(job.format.sampleRate)
        let unheard = min(written, Int(queued * rate / 1_000_000))
        let reference = unheard * PlaybackController.renderFormat.sampleRate / job.format.sampleRate
        let rewound = job.pause(
            rewindingFrames: unheard, referenceSamples: min(reference, referenceDelivered), at: clock.now)
        written -= rewound.frames
        referenceDelivered -= rewound.reference
        gain = 0
        core.markSilent()
    }

    /// A watchdog limit passed while the thread could still act: flush and fail.
    private func abort(_ job: PlaybackJob, written: Int, error: PlaybackError) {
        do {
            try stream?.flush()
        } catch {
            closeStream()
        }
        padTapFrame()
        job.resolve(now: clock.now, writtenFrames: written) { .failed(error, timing: $0) }
    }

    /// The stream failed: close it (the next item reopens) and fail the item.
    private func fail(_ job: PlaybackJob, written: Int, error: any Error) {
        closeStream()
        padTapFrame()
        job.resolve(now: clock.now, writtenFrames: written) { .failed(error, timing: $0) }
    }

    /// Marks the item started once the sink has consumed some of it: written minus queued is at
    /// least 5 ms (a suspended sink reports a little under what was written, never more); also
    /// publishes the stream latency for the echo canceller.
    private func checkStarted(_ job: PlaybackJob, written: Int, started: Bool, now: Instant) -> Bool {
        guard let latency = try? stream?.latencyMicroseconds() else { return started }
        core.outputLatencyMicroseconds.store(Int64(clamping: latency), ordering: .relaxed)
        guard !started else { return true }
        let writtenMicroseconds = Int64(written) * 1_000_000 / Int64(job.format.sampleRate)
        let played = writtenMicroseconds - Int64(clamping: latency)
        guard played >= 5_000 else { return false }
        job.markStarted(at: now - .microseconds(played))
        return true
    }

    private func recordStopLatency(from stopAt: Instant, flushedAt: Instant? = nil) {
        let latency = (flushedAt ?? clock.now) - stopAt
        core.lastStopLatencyNanoseconds.store(nanoseconds(latency), ordering: .relaxed)
    }

    // MARK: - Stream

    private func openStream(format: AudioFormat, sink: String?, for job: PlaybackJob) throws {
        if let stream, stream.format == format, streamSink == sink { return }
        closeStream()
        let start = clock.now
        let opened = try PulsePlaybackStream(
            format: format, device: sink, targetLatencyMilliseconds: settings.targetLatencyMilliseconds,
            streamName: settings.streamName)
        job.markStreamOpened(taking: clock.now - start)
        let samples = max(1, format.sampleRate * settings.chunkMilliseconds / 1000) * format.channels
        if chunk.count < samples {
            chunk.deallocate()
            chunk = .allocate(capacity: samples)
        }
        chunkSamples = samples
        stream = opened
        streamSink = sink
    }

    private func closeStream() {
        stream?.close()
        stream = nil
        streamSink = nil
    }

    // MARK: - Gain and render tap

    /// Scales the chunk for ducking, ramping from the previous gain over the chunk.
    private func applyGain(count: Int, channels: Int) {
        let target: Float = core.ducked.load(ordering: .relaxed) ? settings.duckGain : 1
        let from = gain
        gain = target
        guard from != 1 || target != 1 else { return }
        let frames = count / channels
        let step = (target - from) / Float(max(frames, 1))
        for frame in 0..<frames {
            let factor = from + step * Float(frame + 1)
            for channel in 0..<channels {
                let index = frame * channels + channel
                chunk[index] = Int16(clamping: Int((Float(chunk[index]) * factor).rounded()))
            }
        }
    }

    /// Hands the tap the reference for what has been written (`upTo` frames of the item; nil =
    /// everything the item has), in 10 ms frames.
    private func deliverReference(_ job: PlaybackJob, upTo written: Int?, format: AudioFormat) {
        guard core.renderTap != nil else { return }
        let target = written.map { $0 * PlaybackController.renderFormat.sampleRate / format.sampleRate } ?? .max
        while referenceDelivered < target {
            let count = job.takeReference(into: staging, maximum: min(staging.count, target - referenceDelivered))
            guard count > 0 else { return }
            referenceDelivered += count
            tapChunker.append(UnsafeBufferPointer(rebasing: staging[0..<count])) { frame in emitTapFrame(frame) }
        }
    }

    /// Completes a partial tap frame with silence at the end of an item.
    private func padTapFrame() {
        guard core.renderTap != nil, tapChunker.pendingCount > 0 else { return }
        let missing = tapChunker.frameSize - tapChunker.pendingCount
        tapChunker.append(UnsafeBufferPointer(rebasing: zeros[0..<missing])) { frame in emitTapFrame(frame) }
    }

    private func emitTapFrame(_ frame: UnsafeBufferPointer<Int16>) {
        guard let tap = core.renderTap else { return }
        if gain == 1 {
            tap(frame)
            return
        }
        for index in 0..<frame.count {
            tapFrame[index] = Int16(clamping: Int((Float(frame[index]) * gain).rounded()))
        }
        tap(UnsafeBufferPointer(tapFrame))
    }

    private func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
