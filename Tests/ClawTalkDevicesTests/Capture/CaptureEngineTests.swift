import ClawTalkAudio
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkDevices

/// CaptureEngine against ``FakeCaptureBackend``: threading, ring, streams, pre-roll and the
/// device policy, with short timings and no sound server.
@Suite("CaptureEngine (fake backend)", .timeLimit(.minutes(1)))
struct CaptureEngineTests {
    /// Fast timings for tests, and buffers deep enough (ring 10 s, streams 20 s at the fake's
    /// 5 ms per frame) that a test process starving its consumer tasks for a while (other suites
    /// block pool threads) loses nothing; the tests of the drop policies set their own sizes.
    static func configuration(source: String? = nil) -> CaptureConfiguration {
        CaptureConfiguration(
            source: source, ringFrames: 2_000, streamBufferFrames: 4_000, deviceCheckInterval: .milliseconds(50),
            retryInitialDelay: .milliseconds(40), retryMaximumDelay: .milliseconds(160), startTimeout: .seconds(5))
    }

    /// True when every frame is intact and frames of one stream run count up without gaps.
    static func intact(_ frames: [CapturedFrame]) -> Bool {
        for (index, frame) in frames.enumerated() {
            guard frame.samples.count == 320 else { return false }
            for (offset, sample) in frame.samples.enumerated().dropFirst(2) {
                let expected = offset % 2 == 0 ? FakeCaptureBackend.amplitude : -FakeCaptureBackend.amplitude
                if sample != expected { return false }
            }
            if index > 0, frames[index - 1].samples[0] == frame.samples[0],
                frame.samples[1] != frames[index - 1].samples[1] &+ 1, frame.samples[1] != 0
            {
                return false
            }
        }
        return true
    }

    @Test("frames arrive in order, numbered, timestamped and intact; levels and stats are published")
    func framesFlow() async throws {
        let backend = FakeCaptureBackend()
        let engine = CaptureEngine(configuration: Self.configuration(), backend: backend)
        #expect(engine.state == .idle)
        let collector = FrameCollector(engine.frames())
        let before = MonotonicTime.nanoseconds()
        try engine.start()
        #expect(engine.state == .capturing(device: nil))
        #expect(await eventually(within: .seconds(30)) { collector.count >= 100 })
        let levels = engine.levels
        engine.stop()
        await collector.waitUntilFinished()
        let frames = collector.frames
        #expect(frames.map(\.sequence) == (0..<UInt64(frames.count)).map { $0 })
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.timestampNanoseconds < $1.timestampNanoseconds })
        #expect(frames.first.map { $0.timestampNanoseconds > before } == true)
        #expect(Self.intact(frames))
        #expect(frames.allSatisfy { $0.samples[0] == 0 }, "all from the default source")
        #expect(levels.peak == 0.25)
        #expect(abs(levels.rms - 0.25) < 0.005)
        let stats = engine.stats
        #expect(stats.frames >= frames.count)
        #expect(stats.overruns == 0 && stats.readErrors == 0 && stats.reopenCount == 0)
        #expect(stats.state == .stopped)
        #expect(backend.openStreams == 0, "the stream was closed")
        print("capture stats: \(stats)")
    }

    @Test("a source is chosen by exact name or by case-insensitive description")
    func chooseSource() throws {
        let backend = FakeCaptureBackend(.init(sources: ["usb_mic": 5, "other": 6]))
        for query in ["usb_mic", "MIC USB_MIC"] {
            let engine = CaptureEngine(configuration: Self.configuration(source: query), backend: backend)
            try engine.start()
            #expect(engine.state == .capturing(device: "usb_mic"))
            #expect(engine.stats.currentDevice == "usb_mic")
            engine.stop()
        }
        #expect(backend.attempts.map(\.source) == ["usb_mic", "usb_mic"])
    }

    @Test("a source that does not exist is an error from start(), not a silent fallback")
    func missingSource() throws {
        let backend = FakeCaptureBackend(.init(sources: ["usb_mic": 5]))
        let engine = CaptureEngine(configuration: Self.configuration(source: "headset"), backend: backend)
        #expect(throws: AudioDeviceError.notFound(name: "headset", available: ["usb_mic"])) {
            try engine.start()
        }
        #expect(engine.state == .idle)
        #expect(backend.attempts.isEmpty, "nothing was opened")
        // Once the device exists, the same engine starts.
        backend.update { $0.sources["headset"] = 7 }
        try engine.start()
        #expect(engine.state == .capturing(device: "headset"))
        engine.stop()
    }

    @Test("a listed source that cannot be opened fails start() with the open error")
    func openFailureAtStart() {
        let backend = FakeCaptureBackend(.init(defaultTag: nil))
        let engine = CaptureEngine(configuration: Self.configuration(), backend: backend)
        #expect(throws: AudioDeviceError.open(device: nil, message: "No such entity")) { try engine.start() }
        #expect(engine.state == .idle)
    }

    @Test("unplugging the chosen source falls back to the default; replugging returns to it")
    func unplugAndReturn() async throws {
        let backend = FakeCaptureBackend(.init(sources: ["usb_mic": 5], defaultTag: 1))
        let engine = CaptureEngine(configuration: Self.configuration(source: "usb_mic"), backend: backend)
        let collector = FrameCollector(engine.frames())
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { collector.frames.contains { $0.samples[0] == 5 } })

        backend.update { $0.sources["usb_mic"] = nil }
        #expect(await eventually(within: .seconds(30)) { engine.stats.currentDevice == nil })
        guard case .fallback(let reason) = engine.state else {
            Issue.record("expected fallback, got \(engine.state)")
            return
        }
        #expect(reason.contains("usb_mic"))
        let fallbackMark = collector.count
        #expect(
            await eventually(within: .seconds(30)) {
                collector.frames[fallbackMark...].contains { $0.samples[0] == 1 }
            })
        // The read error or the watcher may notice first; either way the default takes over.
        var stats = engine.stats
        #expect(stats.reopenCount >= 1)

        backend.update { $0.sources["usb_mic"] = 5 }
        #expect(await eventually(within: .seconds(30)) { engine.state == .capturing(device: "usb_mic") })
        let returnMark = collector.count
        #expect(
            await eventually(within: .seconds(30)) { collector.frames[returnMark...].contains { $0.samples[0] == 5 } })
        engine.stop()
        await collector.waitUntilFinished()
        stats = engine.stats
        #expect(stats.reopenCount >= 2)
        let frames = collector.frames
        #expect(frames.map(\.sequence) == (0..<UInt64(frames.count)).map { $0 }, "no frame lost across switches")
        #expect(Self.intact(frames))
        #expect(backend.openStreams == 0)
        print("unplug stats: \(stats)")
    }

    @Test("an unplug seen as a read error retries the chosen source once, then opens the default")
    func unplugSeenByRead() async throws {
        let backend = FakeCaptureBackend(.init(sources: ["usb_mic": 5], defaultTag: 1))
        var configuration = Self.configuration(source: "usb_mic")
        configuration.deviceCheckInterval = .seconds(30)  // the watcher stays out of it
        let engine = CaptureEngine(configuration: configuration, backend: backend)
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { engine.stats.frames > 3 })
        backend.update { $0.sources["usb_mic"] = nil }
        #expect(await eventually(within: .seconds(30)) { engine.stats.currentDevice == nil })
        let stats = engine.stats
        #expect(stats.readErrors == 1 && stats.openFailures == 1 && stats.reopenCount == 1, "\(stats)")
        #expect(
            stats.state
                == .fallback(reason: "cannot open source 'usb_mic': cannot open audio device 'usb_mic': No such entity")
        )
        #expect(backend.attempts.map(\.source) == ["usb_mic", "usb_mic", nil])
        engine.stop()
    }

    @Test("a chosen source that vanishes from the list while still readable is left for the default")
    func movedStream() async throws {
        let backend = FakeCaptureBackend(.init(sources: ["usb_mic": 5], defaultTag: 1, removedSourcesKeepReading: true))
        let engine = CaptureEngine(configuration: Self.configuration(source: "usb_mic"), backend: backend)
        try engine.start()
        backend.update { $0.sources["usb_mic"] = nil }
        #expect(await eventually(within: .seconds(30)) { engine.stats.currentDevice == nil })
        guard case .fallback(let reason) = engine.state else {
            Issue.record("expected fallback, got \(engine.state)")
            return
        }
        #expect(reason.contains("no longer listed"))
        #expect(engine.stats.readErrors == 0)
        engine.stop()
    }

    @Test("with no source at all the engine reports unavailable, retries with growing delays, and recovers")
    func unavailableAndBackoff() async throws {
        let backend = FakeCaptureBackend(.init(defaultTag: 1))
        let engine = CaptureEngine(configuration: Self.configuration(), backend: backend)
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { engine.stats.frames > 5 })
        backend.update { $0.defaultTag = nil }
        #expect(await eventually(within: .seconds(30)) { if case .unavailable = engine.state { true } else { false } })
        let window = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(900))
        // 40, 80, 160, 160, … ms: a handful of attempts in 900 ms, never a spin (a busy machine's
        // sleeps run long, so it makes fewer, never more). The exact delays are
        // `retryBackoffSequence`'s; here only what the clock can show either way: no wait shorter
        // than the initial delay, and waits that grew to the maximum.
        let end = window + .milliseconds(900)
        #expect(backend.attempts.filter { !$0.succeeded && $0.at >= window && $0.at < end }.count <= 12)
        #expect(await eventually(within: .seconds(30)) { backend.attempts.filter { !$0.succeeded }.count >= 6 })
        let failed = backend.attempts.filter { !$0.succeeded }
        let gaps = zip(failed, failed.dropFirst()).map { $1.at - $0.at }
        print("retry gaps: \(gaps)")
        #expect(gaps.allSatisfy { $0 >= .milliseconds(35) })
        #expect(gaps.suffix(2).allSatisfy { $0 >= .milliseconds(150) })

        let framesBefore = engine.stats.frames
        backend.update { $0.defaultTag = 2 }
        #expect(await eventually(within: .seconds(30)) { engine.state == .capturing(device: nil) })
        #expect(await eventually(within: .seconds(30)) { engine.stats.frames > framesBefore + 10 })
        // Stopping while waiting between attempts: see `stopWhileWaitingToRetryIsPrompt`.
        backend.update { $0.defaultTag = nil }
        #expect(await eventually(within: .seconds(30)) { if case .unavailable = engine.state { true } else { false } })
        engine.stop()
        #expect(engine.state == .stopped)
    }

    @Test("retry delays start at the initial one, double up to the maximum and start over after a reset")
    func retryBackoffSequence() {
        var backoff = RetryBackoff(initial: .milliseconds(40), maximum: .milliseconds(160))
        #expect((0..<5).map { _ in backoff.next() } == [40, 80, 160, 160, 160].map { Duration.milliseconds($0) })
        backoff.reset()
        #expect(backoff.next() == .milliseconds(40))
    }

    @Test("stop() is prompt even while the engine waits between attempts")
    func stopWhileWaitingToRetryIsPrompt() async throws {
        let backend = FakeCaptureBackend(.init(defaultTag: 1))
        var configuration = Self.configuration()
        // A wait that stop() would have to give up on (after 1 s) if it were not interrupted.
        configuration.retryInitialDelay = .seconds(30)
        configuration.retryMaximumDelay = .seconds(30)
        let engine = CaptureEngine(configuration: configuration, backend: backend)
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { engine.stats.frames > 5 })
        backend.update { $0.defaultTag = nil }
        #expect(await eventually(within: .seconds(30)) { if case .unavailable = engine.state { true } else { false } })
        let elapsed = ContinuousClock().measure { engine.stop() }
        // One 20 ms sleep slice normally; the bound only has to stay below stop()'s 1 s give-up.
        #expect(elapsed < .milliseconds(900), "stop took \(elapsed)")
        #expect(engine.state == .stopped)
    }

    @Test("a device that opens but never delivers makes the engine back off, not spin")
    func brokenDevice() async throws {
        let backend = FakeCaptureBackend(.init(sources: ["usb_mic": 5], defaultTag: 1, readsFail: true))
        let engine = CaptureEngine(configuration: Self.configuration(source: "usb_mic"), backend: backend)
        let started = ContinuousClock.now
        try engine.start()
        try await Task.sleep(for: .milliseconds(800))
        let stats = engine.stats
        print("broken device: \(stats), \(backend.attempts.count) opens")
        // Never a spin: a handful of opens (one read error each) in the first 800 ms; a busy
        // machine makes fewer, never more.
        #expect(backend.attempts.filter { $0.at < started + .milliseconds(800) }.count <= 12)
        #expect(stats.frames == 0)
        #expect(await eventually(within: .seconds(30)) { engine.stats.readErrors >= 3 })
        #expect(await eventually(within: .seconds(30)) { if case .unavailable = engine.state { true } else { false } })
        // Once reads work, capture resumes (from the chosen source, after the watcher's next look).
        backend.update { $0.readsFail = false }
        #expect(await eventually(within: .seconds(30)) { engine.stats.frames > 10 })
        #expect(await eventually(within: .seconds(30)) { engine.state == .capturing(device: "usb_mic") })
        let elapsed = ContinuousClock().measure { engine.stop() }
        // Joined, not given up on: the stream is closed when stop() returns (it gives up after 1 s).
        #expect(backend.openStreams == 0)
        #expect(elapsed < .milliseconds(900), "stop took \(elapsed)")
    }

    @Test("a stream that fails after working is reopened on the chosen source at once")
    func failedStreamReopensChosen() async throws {
        let backend = FakeCaptureBackend(.init(sources: ["usb_mic": 5], defaultTag: 1))
        var configuration = Self.configuration(source: "usb_mic")
        configuration.deviceCheckInterval = .seconds(30)  // no help from the watcher
        let engine = CaptureEngine(configuration: configuration, backend: backend)
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { engine.stats.frames > 5 })
        backend.update { $0.failingReads = 1 }
        #expect(await eventually(within: .seconds(30)) { engine.stats.readErrors == 1 })
        let before = engine.stats.frames
        #expect(await eventually(within: .seconds(30)) { engine.stats.frames > before + 5 })
        #expect(engine.state == .capturing(device: "usb_mic"))
        #expect(backend.attempts.map(\.source) == ["usb_mic", "usb_mic"], "reopened, never fell back")
        #expect(engine.stats.reopenCount == 1)
        engine.stop()
    }

    @Test("a consumer too slow for the ring loses frames as counted overruns, seen as sequence gaps")
    func overruns() async throws {
        let backend = FakeCaptureBackend(.init(readDelayMicroseconds: 500))
        var configuration = Self.configuration()
        configuration.ringFrames = 4
        configuration.drainInterval = .milliseconds(100)
        let engine = CaptureEngine(configuration: configuration, backend: backend)
        let collector = FrameCollector(engine.frames())
        try engine.start()
        try await Task.sleep(for: .milliseconds(400))
        engine.stop()
        await collector.waitUntilFinished()
        let stats = engine.stats
        let sequences = collector.frames.map(\.sequence)
        #expect(stats.overruns > 0)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 })
        #expect(zip(sequences, sequences.dropFirst()).contains { $1 > $0 + 1 })
        // Every frame read was delivered, dropped, or left in the 4-frame ring at stop.
        let undelivered = stats.frames - stats.overruns - sequences.count
        #expect(undelivered >= 0 && undelivered <= 4, "\(stats)")
        #expect(stats.streamDrops == 0)
    }

    @Test("a subscriber that does not read keeps only the newest frames, and drops are counted")
    func streamDrops() async throws {
        var configuration = Self.configuration()
        configuration.streamBufferFrames = 5
        let engine = CaptureEngine(configuration: configuration, backend: FakeCaptureBackend())
        let stream = engine.frames()
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { engine.stats.streamDrops >= 30 })
        engine.stop()
        var received: [CapturedFrame] = []
        for await frame in stream { received.append(frame) }
        let stats = engine.stats
        #expect(stats.overruns == 0)
        // Frames 0, 1, 2 … were offered in order; all but the newest five were dropped.
        #expect(received.map(\.sequence) == (0..<5).map { UInt64(stats.streamDrops + $0) }, "\(stats)")
    }

    @Test("stop() is prompt, nothing captured later is delivered, and a stopped engine stays stopped")
    func stopIsPrompt() async throws {
        let backend = FakeCaptureBackend(.init(readDelayMicroseconds: 20_000))
        let engine = CaptureEngine(configuration: Self.configuration(), backend: backend)
        let collector = FrameCollector(engine.frames())
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { collector.count >= 5 })
        let elapsed = ContinuousClock().measure { engine.stop() }
        let stoppedAt = MonotonicTime.nanoseconds()
        // One 20 ms read normally; joined, not given up on: the stream is closed when stop()
        // returns, and it took less than stop()'s 1 s give-up.
        #expect(backend.openStreams == 0)
        #expect(elapsed < .milliseconds(900), "stop took \(elapsed)")
        let framesAtStop = engine.stats.frames
        await collector.waitUntilFinished()
        #expect(collector.frames.allSatisfy { $0.timestampNanoseconds < stoppedAt })
        // The barrier: the capture thread has returned; nothing is left to count a frame.
        #expect(await eventually { !engine.isCaptureThreadRunning })
        #expect(engine.stats.frames == framesAtStop)
        #expect(engine.state == .stopped)
        #expect(backend.openStreams == 0)
        // Later subscriptions end at once; a restart is refused.
        var late = 0
        for await _ in engine.frames() { late += 1 }
        #expect(late == 0)
        #expect(throws: AudioDeviceError.self) { try engine.start() }
        engine.stop()
    }

    @Test("the pre-roll holds the most recent audio, whole frames in order", arguments: [300, 500])
    func preRoll(milliseconds: Int) async throws {
        var configuration = Self.configuration()
        configuration.preRollMilliseconds = milliseconds
        let engine = CaptureEngine(configuration: configuration, backend: FakeCaptureBackend())
        #expect(engine.preRoll().isEmpty)
        let collector = FrameCollector(engine.frames())
        try engine.start()
        let samples = milliseconds * 16
        #expect(await eventually(within: .seconds(30)) { collector.count >= samples / 320 + 20 })
        let preRoll = engine.preRoll()
        engine.stop()
        await collector.waitUntilFinished()
        #expect(preRoll.count == samples)
        // Whole frames (the capacity is a multiple of 320), consecutive, intact.
        let frames = stride(from: 0, to: preRoll.count, by: 320).map {
            CapturedFrame(samples: Array(preRoll[$0..<$0 + 320]), timestampNanoseconds: 0, sequence: 0)
        }
        #expect(Self.intact(frames))
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $1.samples[1] == $0.samples[1] &+ 1 })
        // It ends with a frame the stream delivered (the newest at the time, or very close).
        let delivered = collector.frames.map(\.samples)
        #expect(delivered.contains(Array(preRoll.suffix(320))))
    }
}
