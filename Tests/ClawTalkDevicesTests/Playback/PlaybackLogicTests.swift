import ClawTalkAudio
import Foundation
import Testing

@testable import ClawTalkDevices

/// The controller's bookkeeping without a sound server: sample queue, watchdog limits, stop and
/// outcome rules, and the requests it refuses before touching a device.
@Suite("Playback bookkeeping")
struct PlaybackLogicTests {
    private let settings = PlaybackSettings()
    private let mono16k = AudioFormat(sampleRate: 16000)

    /// Pulls one chunk of up to `maximum` samples at `now`.
    private func pull(_ job: PlaybackJob, maximum: Int = 160, at now: ContinuousClock.Instant) -> PlaybackJob.Pull {
        let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: max(maximum, 1))
        defer { buffer.deallocate() }
        return job.pull(
            into: buffer, maximum: maximum, writtenFrames: 0, lastWriteAt: nil, now: now, settings: settings)
    }

    @Test("SampleQueue hands out appended blocks in order across block boundaries")
    func sampleQueue() {
        var queue = SampleQueue()
        queue.append([1, 2, 3])
        queue.append([])
        queue.append([4, 5, 6, 7, 8])
        #expect(queue.available == 8 && queue.appended == 8)
        let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        var out: [Int16] = []
        while true {
            let count = queue.read(into: buffer, maximum: 4)
            if count == 0 { break }
            out += buffer[0..<count]
        }
        #expect(out == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(queue.available == 0)
        queue.append([9])
        #expect(queue.read(into: buffer, maximum: 0) == 0)
        #expect(queue.read(into: buffer, maximum: 4) == 1 && buffer[0] == 9)
        #expect(queue.appended == 9)
    }

    @Test("SampleQueue rewinds across block boundaries, never past the start")
    func sampleQueueRewind() {
        var queue = SampleQueue()
        queue.append([1, 2, 3])
        queue.append([4, 5, 6, 7, 8])
        let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 8)
        defer { buffer.deallocate() }
        #expect(queue.read(into: buffer, maximum: 6) == 6)
        #expect(queue.rewind(by: 4) == 4)
        #expect(queue.available == 6)
        #expect(queue.read(into: buffer, maximum: 8) == 6)
        #expect(Array(buffer[0..<6]) == [3, 4, 5, 6, 7, 8])
        #expect(queue.rewind(by: 100) == 8)
        #expect(queue.read(into: buffer, maximum: 2) == 2 && Array(buffer[0..<2]) == [1, 2])
    }

    @Test("pause: no watchdog limit runs; resume pushes the end limit back by the pause")
    func pausedItemHasNoLimit() throws {
        let start = ContinuousClock.now
        let job = PlaybackJob(kind: .speech, format: mono16k, enqueuedAt: start)
        job.feed([Int16](repeating: 1, count: 16000))
        job.markDequeued(at: start)
        job.markStarted(at: start)
        #expect(pull(job, maximum: 1600, at: start).count == 1600)
        let (before, _) = try #require(job.deadline(settings: settings))
        let rewound = job.pause(rewindingFrames: 400, referenceSamples: 0, at: start + .milliseconds(100))
        #expect(rewound.frames == 400)
        #expect(job.deadline(settings: settings) == nil, "no limit while paused")
        job.resume(at: start + .seconds(5))
        let (after, _) = try #require(job.deadline(settings: settings))
        #expect(after - before == .milliseconds(4900))
        // What was flushed unheard is read again.
        #expect(pull(job, maximum: 16000, at: start + .seconds(5)).count == 16000 - 1600 + 400)
    }

    @Test("render reference: stereo 48 kHz in blocks becomes time-aligned 16 kHz mono")
    func renderReference() throws {
        // 100 ms of silence, 200 ms of 500 Hz on the left only, 100 ms of silence.
        let rate = 48000
        let burst = TestSignals.tone(frequency: 500, seconds: 0.2, sampleRate: rate, amplitude: 0.5)
        let left = [Int16](repeating: 0, count: rate / 10) + burst + [Int16](repeating: 0, count: rate / 10)
        let stereo: [Int16] = left.flatMap { [$0, 0] }
        let reference = try RenderReference(format: AudioFormat(sampleRate: rate, channels: 2))
        var out: [Int16] = []
        for start in stride(from: 0, to: stereo.count, by: 962) {  // odd block sizes, whole frames
            out += try reference.convert(stereo[start..<min(start + 962, stereo.count)])
        }
        out += try reference.finish()
        #expect(abs(out.count - 6400) <= 2)
        let loud = out.indices.filter { abs(Int(out[$0])) > 4000 }
        let first = try #require(loud.first)
        let last = try #require(loud.last)
        // Half the left channel's amplitude; onset and end within 1 ms of where they were.
        #expect(abs(first - 1600) <= 16 && abs(last - 4800) <= 16, "burst at \(first)...\(last)")
        #expect(abs(LevelMeter.peak(out) - 0.25) < 0.02)
        let power = TestSignals.goertzel(out[2000..<4400], frequency: 500, sampleRate: 16000)
        #expect(power > 100 * TestSignals.goertzel(out[2000..<4400], frequency: 1500, sampleRate: 16000))
    }

    @Test("watchdog: start limit from readiness, end limit = duration + 2 s from the start")
    func startAndEndLimits() throws {
        let t0 = ContinuousClock.now
        let job = PlaybackJob(kind: .speech, format: mono16k, enqueuedAt: t0)
        job.feed([Int16](repeating: 1, count: 16000))
        job.completeInput()
        #expect(job.deadline(settings: settings) == nil, "a queued item has no limit yet")

        #expect(pull(job, at: t0).count == 160)
        let start = try #require(job.deadline(settings: settings))
        #expect(start.0 == t0 + .milliseconds(650) && start.1 == .startTimedOut(milliseconds: 650))
        #expect(pull(job, at: t0 + .milliseconds(651)).overdue == .startTimedOut(milliseconds: 650))

        job.markStarted(at: t0 + .milliseconds(100))
        let end = try #require(job.deadline(settings: settings))
        #expect(end.0 == t0 + .milliseconds(3100) && end.1 == .overran(limitSeconds: 3))
        #expect(pull(job, at: t0 + .milliseconds(3000)).overdue == nil)
        #expect(pull(job, at: t0 + .milliseconds(3100)).overdue == .overran(limitSeconds: 3))
    }

    @Test("watchdog: the start limit runs from when the thread takes the item up with audio at hand")
    func startLimitFromDequeue() throws {
        let t0 = ContinuousClock.now
        let ready = PlaybackJob(kind: .speech, format: mono16k, enqueuedAt: t0)
        ready.feed([Int16](repeating: 1, count: 1600))
        ready.markDequeued(at: t0 + .milliseconds(20))
        #expect(try #require(ready.deadline(settings: settings)).0 == t0 + .milliseconds(670))

        // A stream whose first audio comes after the item was taken up (the thread may be stuck
        // opening the stream and never pull).
        let waiting = PlaybackJob(kind: .speech, format: mono16k, enqueuedAt: t0)
        waiting.markDequeued(at: t0)
        #expect(waiting.deadline(settings: settings) == nil)
        waiting.feed([Int16](repeating: 1, count: 160), at: t0 + .milliseconds(300))
        #expect(try #require(waiting.deadline(settings: settings)).0 == t0 + .milliseconds(950))
    }

    @Test("watchdog: a playback thread that falls behind but still writes is late, not overrun")
    func lateWritesPushTheEndLimit() throws {
        let t0 = ContinuousClock.now
        let job = PlaybackJob(kind: .speech, format: mono16k, enqueuedAt: t0)
        job.feed([Int16](repeating: 1, count: 16000))
        job.completeInput()
        let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 160)
        defer { buffer.deallocate() }
        func pull(written: Int, lastWrite: ContinuousClock.Instant, at now: ContinuousClock.Instant) -> PlaybackJob.Pull
        {
            job.pull(
                into: buffer, maximum: 160, writtenFrames: written, lastWriteAt: lastWrite, now: now,
                settings: settings)
        }
        _ = pull(written: 0, lastWrite: t0, at: t0)
        job.markStarted(at: t0)
        // 1 s of audio, the last chunk written only 2.9 s in (starved of CPU, not blocked).
        #expect(pull(written: 15840, lastWrite: t0 + .milliseconds(2900), at: t0 + .milliseconds(3500)).overdue == nil)
        #expect(try #require(job.deadline(settings: settings)).0 == t0 + .milliseconds(4900))
        // A write that stops moving (a stuck sink) still passes the limit.
        #expect(
            pull(written: 16000, lastWrite: t0 + .milliseconds(2900), at: t0 + .milliseconds(4900)).overdue
                == .overran(limitSeconds: 3))
    }

    @Test("watchdog: the end limit is capped at the maximum duration")
    func endLimitCap() throws {
        let t0 = ContinuousClock.now
        let capped = PlaybackSettings(maximumDuration: .seconds(2))
        let job = PlaybackJob(kind: .speech, format: mono16k, enqueuedAt: t0)
        job.feed([Int16](repeating: 1, count: 16000 * 10))
        job.completeInput()
        _ = pull(job, at: t0)
        job.markStarted(at: t0)
        let end = try #require(job.deadline(settings: capped))
        #expect(end.0 == t0 + .seconds(2) && end.1 == .overran(limitSeconds: 2))
    }

    @Test("watchdog: waiting for a stream's source pauses the limits")
    func starvationPausesLimits() throws {
        let t0 = ContinuousClock.now
        let job = PlaybackJob(kind: .speech, format: mono16k, enqueuedAt: t0)
        // Before the start: a starved item has no limit, and readiness begins anew with new audio.
        job.feed([Int16](repeating: 1, count: 160))
        #expect(pull(job, at: t0).count == 160)
        #expect(pull(job, at: t0 + .milliseconds(10)).count == 0)
        #expect(job.deadline(settings: settings) == nil)
        job.feed([Int16](repeating: 1, count: 1600))
        #expect(pull(job, at: t0 + .seconds(1)).count == 160)
        #expect(try #require(job.deadline(settings: settings)).0 == t0 + .milliseconds(1650))

        // After the start: starved time is added to the end limit.
        job.markStarted(at: t0 + .seconds(1))
        let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 2000)
        defer { buffer.deallocate() }
        _ = job.pull(
            into: buffer, maximum: 2000, writtenFrames: 0, lastWriteAt: nil, now: t0 + .milliseconds(1010),
            settings: settings)
        #expect(pull(job, at: t0 + .milliseconds(1100)).count == 0)
        #expect(job.deadline(settings: settings) == nil)
        job.feed([Int16](repeating: 1, count: 160))
        #expect(pull(job, at: t0 + .milliseconds(1600)).count == 160)
        // 0.12 s received + 2 s slack, from the start plus 0.5 s starved.
        let end = try #require(job.deadline(settings: settings))
        #expect(end.0 == t0 + .milliseconds(1000 + 500 + 2120))
        job.completeInput()
        #expect(pull(job, at: t0 + .milliseconds(1610)).complete)
    }

    @Test("a stop request reaches the thread once; the outcome is decided once")
    func stopAndResolveOnce() async throws {
        let t0 = ContinuousClock.now
        let job = PlaybackJob(kind: .chime, format: mono16k, enqueuedAt: t0)
        job.feed([1, 2, 3])
        job.completeInput()
        #expect(job.requestStop(at: t0 + .milliseconds(5)))
        #expect(job.pendingStop == t0 + .milliseconds(5))
        #expect(pull(job, at: t0 + .milliseconds(6)).stopRequestedAt == t0 + .milliseconds(5))
        let flushed = t0 + .milliseconds(8)
        #expect(
            job.resolve(now: flushed, writtenFrames: 1600, flushedAt: flushed) {
                .interrupted(interruptedAt: 0.07, timing: $0)
            })
        #expect(!job.resolve(now: flushed) { _ in .cancelled })
        #expect(!job.requestStop(at: flushed))
        #expect(job.pendingStop == nil)
        let outcome = await job.outcome()
        guard case .interrupted(let at, let timing) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(at == 0.07)
        #expect(timing.writtenSeconds == 0.1)
        #expect(timing.stopLatency == .milliseconds(3))
        #expect(timing.kind == .chime)
        #expect(outcome.description == "interrupted at 0.07 s")
    }

    @Test("a closed controller refuses items without touching the sound server")
    func closedController() async {
        let controller = PlaybackController(sink: "never-opened")
        controller.close()
        let outcome = await controller.play(.pcm(Chime.send.render(sampleRate: 16000), kind: .chime))
        #expect(outcome.error as? PlaybackError == .closed)
        #expect(outcome.timing?.firstWriteAt == nil)
        #expect(!controller.isBusy)
    }

    @Test("a buffer that is not whole frames fails before it is queued")
    func partialFrame() async {
        let controller = PlaybackController(sink: "never-opened")
        let stereo = PCMBuffer(format: AudioFormat(sampleRate: 24000, channels: 2), samples: [1, 2, 3])
        let handle = controller.enqueue(.pcm(stereo, kind: .speech))
        #expect(handle.isDone)
        let outcome = await handle.outcome()
        #expect(outcome.error as? PlaybackError == .partialFrame(samples: 3, channels: 2))
        #expect("\(outcome)" == "failed: buffer of 3 samples is not a whole number of 2-channel frames")
    }

    @Test("settings: 12 dB of ducking is a gain of about 0.25")
    func duckGain() {
        #expect(abs(PlaybackSettings().duckGain - 0.2512) < 0.0005)
        #expect(PlaybackSettings(duckDecibels: 6).duckGain > 0.5)
    }

    @Test("errors read as one clear line")
    func descriptions() {
        #expect(
            PlaybackError.startTimedOut(milliseconds: 650).description
                == "playback did not start within 650 ms of the audio being ready (sink suspended or stalled?)")
        #expect(
            PlaybackError.overran(limitSeconds: 3.25).description
                == "playback did not finish within its duration plus slack (3.3 s); stopped")
        #expect(
            PlaybackError.formatMismatch(expected: AudioFormat(sampleRate: 22050), received: .speech).description
                == "stream buffer is 16000 Hz mono, but the item was declared as 22050 Hz mono")
    }
}
