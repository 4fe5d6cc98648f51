import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTestTraits
import Foundation
import Synchronization
import Testing

/// PlaybackController against a real PulseAudio server (`scripts/audio-rig start`), playing to a
/// private null sink and listening to its monitor (see ``PlaybackTestSink``).
@Suite(
    "PlaybackController (rig)", .serialized, .audioRig, .timeLimit(.minutes(1)),
    .needsAudioRig,
    .privatePlaybackSink)
struct PlaybackControllerDeviceTests {
    private var sink: PlaybackTestSink {
        get throws { try #require(PlaybackTestSink.current) }
    }

    @Test("a 1 s 1 kHz tone at 24 kHz arrives at the sink for 1 s")
    func toneArrives() async throws {
        let sink = try sink
        let controller = PlaybackController(sink: sink.name)
        let recorder = try MonitorRecorder(source: sink.monitor)
        try await Task.sleep(for: .milliseconds(100))
        let outcome = await controller.play(.pcm(toneBuffer(1000, seconds: 1), kind: .speech))
        try await Task.sleep(for: .milliseconds(100))
        let recording = try recorder.stop()

        guard case .finished(let played, let timing) = outcome else {
            Issue.record("expected finished, got \(outcome)")
            return
        }
        #expect(abs(played - 1.0) < 0.001)
        let span = try #require(recording.loudSpan(amplitude: 0.3), "no tone captured")
        let heard = Double(span.last - span.first + 1) / 16000
        let toneWindows = recording.windowsWithTone(1000, amplitude: 0.3)
        let offTone = recording.windowsWithTone(3000, amplitude: 0.3)
        let firstWrite = try #require(timing.firstWriteAt)
        let lastWrite = try #require(timing.lastWriteAt)
        let heardAt = recording.instant(ofSample: span.first)
        print(
            "tone: heard \(heard) s; enqueue→first write \(timing.queueToFirstWrite.map(seconds) ?? -1) s, "
                + "stream open \(timing.streamOpenDuration.map(seconds) ?? -1) s, first write→heard \(seconds(heardAt - firstWrite)) s, "
                + "writes span \(seconds(lastWrite - firstWrite)) s, output latency \(controller.outputLatency.map(seconds) ?? -1) s"
        )
        // All of it arrives, once: the tone windows count the second of tone (a busy machine's
        // underruns add silence inside the span, never tone), the span is at least the second.
        #expect(heard >= 0.94, "captured tone lasts \(heard) s")
        // A starved writer splits the tone with gaps; each gap's edges can add a partial window.
        let gaps = (span.first / 160...span.last / 160).filter { !toneWindows.contains($0) }.count
        #expect(toneWindows.count >= 97 && toneWindows.count <= 102 + gaps)
        #expect(offTone.isEmpty)
        // Heard when written, not after a second of server-side buffering (the latency itself, a
        // few ms, is `clawtalk bench`'s playback.latency).
        #expect(seconds(heardAt - firstWrite) > -0.02 && seconds(heardAt - firstWrite) < 1.0)
        #expect(timing.format == AudioFormat(sampleRate: 24000))
        #expect(timing.kind == .speech)
    }

    @Test("stop() during a 3 s clip: the tone ends soon after and interruptedAt matches what was heard")
    func stopIsFast() async throws {
        let sink = try sink
        let controller = PlaybackController(sink: sink.name)
        let recorder = try MonitorRecorder(source: sink.monitor)
        let handle = controller.enqueue(.pcm(toneBuffer(1000, seconds: 3), kind: .speech))
        try await Task.sleep(for: .milliseconds(900))
        let stopAt = ContinuousClock.now
        controller.stop()
        let outcome = await handle.outcome()
        try await Task.sleep(for: .milliseconds(250))
        let recording = try recorder.stop()

        guard case .interrupted(let interruptedAt, let timing) = outcome else {
            Issue.record("expected interrupted, got \(outcome)")
            return
        }
        let span = try #require(recording.loudSpan(amplitude: 0.3), "no tone captured")
        // Tone heard, by 10 ms windows (an underrun's silence inside the span is not tone).
        let heard = Double(recording.windowsWithTone(1000, amplitude: 0.3).count) / 100
        let endAfterStop = seconds(recording.instant(ofSample: span.last) - stopAt)
        let stopLatency = try #require(timing.stopLatency)
        print(
            "stop: latency to flushed stream \(seconds(stopLatency) * 1000) ms; tone ended \(endAfterStop * 1000) ms "
                + "after stop(); interruptedAt \(interruptedAt) s vs heard \(heard) s; written \(timing.writtenSeconds) s"
        )
        // How fast the stop is (tens of ms) is `clawtalk bench`'s business; here: it cut the clip
        // (about 2 s of it were left after the 0.9 s), whatever the machine's speed.
        #expect(stopLatency < .seconds(1))
        #expect(controller.lastStopLatency == stopLatency)
        #expect(endAfterStop > -0.02 && endAfterStop < 1.0, "tone ended \(endAfterStop) s after the stop call")
        #expect(abs(interruptedAt - heard) <= 0.080)
        #expect(interruptedAt > 0 && interruptedAt < 3.0)
        #expect(timing.writtenSeconds >= interruptedAt)
    }

    @Test("stop() drops queued items; items queued after it play")
    func stopDropsQueue() async throws {
        let sink = try sink
        let controller = PlaybackController(sink: sink.name)
        let recorder = try MonitorRecorder(source: sink.monitor)
        let first = controller.enqueue(.pcm(toneBuffer(1000, seconds: 1.5), kind: .speech))
        let second = controller.enqueue(.pcm(toneBuffer(1500, seconds: 0.4), kind: .speech))
        let third = controller.enqueue(.pcm(Chime.send.render(sampleRate: 24000), kind: .chime))
        try await Task.sleep(for: .milliseconds(300))
        #expect(controller.isBusy)
        controller.stop()
        let after = controller.enqueue(.pcm(toneBuffer(2500, seconds: 0.3), kind: .speech))
        let outcomes = [await first.outcome(), await second.outcome(), await third.outcome(), await after.outcome()]
        try await Task.sleep(for: .milliseconds(100))
        let recording = try recorder.stop()

        print("queue after stop: \(outcomes)")
        guard case .interrupted = outcomes[0] else { throw RigError(description: "first: \(outcomes[0])") }
        guard case .cancelled = outcomes[1], case .cancelled = outcomes[2] else {
            throw RigError(description: "queued: \(outcomes[1]), \(outcomes[2])")
        }
        guard case .finished(let played, _) = outcomes[3] else { throw RigError(description: "after: \(outcomes[3])") }
        #expect(abs(played - 0.3) < 0.001)
        #expect(!recording.windowsWithTone(1000, amplitude: 0.3).isEmpty)
        #expect(recording.windowsWithTone(1500, amplitude: 0.3).isEmpty, "a dropped item was played")
        // A played chime note fills many windows in a row; a starved writer's click can light one.
        #expect(
            Recording.longestRun(recording.windowsWithTone(Chime.send.notes[0].frequency, amplitude: 0.2)) < 3,
            "the dropped chime was played")
        let later = recording.windowsWithTone(2500, amplitude: 0.3)
        #expect(later.count >= 27 && later.count <= 32)
        #expect(!controller.isBusy)
    }

    @Test("ducking lowers the output by 12 dB")
    func ducking() async throws {
        let sink = try sink
        let controller = PlaybackController(sink: sink.name)
        let recorder = try MonitorRecorder(source: sink.monitor)
        let handle = controller.enqueue(.pcm(toneBuffer(1000, seconds: 3), kind: .speech))
        try await Task.sleep(for: .milliseconds(700))
        let duckedAt = ContinuousClock.now
        controller.setDucked(true)
        #expect(controller.isDucked)
        let outcome = await handle.outcome()
        controller.setDucked(false)
        try await Task.sleep(for: .milliseconds(100))
        let recording = try recorder.stop()

        guard case .finished = outcome else { throw RigError(description: "\(outcome)") }
        let power = recording.windows(1000)
        let toneWindows = power.indices.filter { power[$0] > 1e6 }
        let first = try #require(toneWindows.first)
        let last = try #require(toneWindows.last)
        // Full level before the switch, ducked after it. The switch is placed on the recording's
        // clock (a busy machine may run the sleep long or start the tone late); 100 ms before it
        // and 200 ms after it (audio already queued at full level) are skipped.
        let switchWindow = Int((seconds(duckedAt - recording.origin) * 100).rounded())
        try #require(
            switchWindow - 10 >= first + 15 && switchWindow + 20 <= last - 15,
            "switch at window \(switchWindow), tone in \(first)...\(last)")
        let loud = power[(first + 5)..<(switchWindow - 10)]
        let quiet = power[(switchWindow + 20)..<(last - 5)]
        let drop = 10 * log10(loud.reduce(0, +) / Double(loud.count) / (quiet.reduce(0, +) / Double(quiet.count)))
        print("ducking: level drop \(drop) dB")
        #expect(abs(drop - 12) <= 2)
    }

    @Test("pause() silences the tone within a chunk or two; resume plays the rest, nothing lost or doubled")
    func pauseAndResume() async throws {
        let sink = try sink
        let controller = PlaybackController(sink: sink.name)
        let recorder = try MonitorRecorder(source: sink.monitor)
        let handle = controller.enqueue(.pcm(toneBuffer(1000, seconds: 2), kind: .speech))
        try await Task.sleep(for: .milliseconds(700))
        let pausedAt = ContinuousClock.now
        controller.setPaused(true)
        #expect(controller.isPaused)
        try await Task.sleep(for: .milliseconds(800))
        let resumedAt = ContinuousClock.now
        controller.setPaused(false)
        let outcome = await handle.outcome()
        try await Task.sleep(for: .milliseconds(100))
        let recording = try recorder.stop()

        guard case .finished(let played, _) = outcome else { throw RigError(description: "\(outcome)") }
        #expect(abs(played - 2.0) < 0.001)
        // All of the tone is heard, once: what was queued unheard at the pause plays after it.
        let tone = recording.windowsWithTone(1000, amplitude: 0.3)
        #expect(tone.count >= 198 && tone.count <= 203, "\(tone.count) tone windows")
        // A gap lies between the pause and the resume, on the recording's clock. How fast the
        // pause takes effect is the bench's (bargein.pause); here: it does, well before resume.
        // The recording's clock is an estimate (read times less the reported latency), good to a
        // few windows: the last 50 ms before the resume are left out (CI saw the resumed tone in
        // the window just before it).
        let pauseWindow = Int((seconds(pausedAt - recording.origin) * 100).rounded())
        let resumeWindow = Int((seconds(resumedAt - recording.origin) * 100).rounded())
        let toneSet = Set(tone)
        let quietSpan = (pauseWindow + 30)..<(resumeWindow - 5)
        try #require(quietSpan.count >= 20, "pause at window \(pauseWindow), resume at \(resumeWindow)")
        let toneWhilePaused = quietSpan.filter { toneSet.contains($0) }
        #expect(toneWhilePaused.isEmpty, "tone while paused in windows \(toneWhilePaused)")
        let before = tone.filter { $0 < pauseWindow + 30 }.count
        print(
            "pause: tone windows \(tone.count), before the pause \(before), gap \(resumeWindow - pauseWindow) windows")
        #expect(before >= 20 && before < 196, "the pause cut the tone (\(before) windows before it)")
        #expect(!controller.isPaused)
    }

    @Test("stop() while paused ends the item; the next item is not paused")
    func stopWhilePaused() async throws {
        let sink = try sink
        let controller = PlaybackController(sink: sink.name)
        let handle = controller.enqueue(.pcm(toneBuffer(1000, seconds: 2), kind: .speech))
        try await Task.sleep(for: .milliseconds(400))
        controller.setPaused(true)
        try await Task.sleep(for: .milliseconds(200))
        controller.stop()
        controller.setPaused(false)
        guard case .interrupted(let heard, _) = await handle.outcome() else {
            throw RigError(description: "not interrupted")
        }
        #expect(heard > 0 && heard < 2.0)
        let next = await controller.play(.pcm(toneBuffer(1500, seconds: 0.3), kind: .speech))
        guard case .finished(let played, _) = next else { throw RigError(description: "\(next)") }
        #expect(abs(played - 0.3) < 0.001)
    }

    @Test("a stream of 3 sentence buffers arriving with gaps plays them in order")
    func streamInOrder() async throws {
        let sink = try sink
        let controller = PlaybackController(sink: sink.name)
        let recorder = try MonitorRecorder(source: sink.monitor)
        let format = AudioFormat(sampleRate: 22050)
        let (stream, continuation) = AsyncThrowingStream<PCMBuffer, any Error>.makeStream()
        let frequencies: [Double] = [600, 900, 1200]
        let producer = Task {
            for (index, frequency) in frequencies.enumerated() {
                // Sentence 2 arrives while 1 still plays; sentence 3 only after 2 has run out.
                // (1.5 s: well after sentence 2 ended, also when a busy machine started it late.)
                try await Task.sleep(for: .milliseconds(index == 0 ? 50 : index == 1 ? 150 : 1500))
                continuation.yield(toneBuffer(frequency, seconds: 0.3, sampleRate: 22050))
            }
            continuation.finish()
        }
        let outcome = await controller.play(.stream(stream, format: format, kind: .speech))
        try await producer.value
        try await Task.sleep(for: .milliseconds(100))
        let recording = try recorder.stop()

        guard case .finished(let played, let timing) = outcome else { throw RigError(description: "\(outcome)") }
        #expect(abs(played - 0.9) < 0.001)
        let spans = frequencies.map { recording.windowsWithTone($0, amplitude: 0.3) }
        print(
            "stream: windows per sentence \(spans.map(\.count)), first at \(spans.map { $0.first ?? -1 }); writes \(timing.writtenSeconds) s"
        )
        // 30 windows of 10 ms, one more at each edge that the tone only partly fills. A starved
        // machine's playback can stall inside a sentence, which adds partly filled windows (33
        // seen under ThreadSanitizer with the machine loaded). A sentence played twice fills 60.
        for span in spans {
            #expect(span.count >= 27 && span.count <= 35, "each sentence lasts 0.3 s: \(span.count) windows")
        }
        let firsts = spans.map { $0.first ?? -1 }
        let lasts = spans.map { $0.last ?? -1 }
        #expect(lasts[0] < firsts[1] + 2 && lasts[1] < firsts[2] + 2, "sentences out of order or overlapping")
        #expect(firsts[0] >= 0 && firsts[0] < firsts[1] && firsts[1] < firsts[2])
        // The third sentence came late: a gap of silence, not a failure.
        #expect(firsts[2] - lasts[1] >= 5)
    }

    @Test("a sink that does not exist fails the item clearly; the next item plays once it exists")
    func missingSink() async throws {
        let sink = try sink
        let missing = "ctpb-missing-\(UInt32.random(in: 0...UInt32.max))"
        let controller = PlaybackController(sink: missing)
        let outcome = await controller.play(.pcm(Chime.trigger.render(sampleRate: 24000), kind: .chime))
        guard case .failed(let error, let timing) = outcome else { throw RigError(description: "\(outcome)") }
        print("missing sink: \(error)")
        guard case AudioDeviceError.open(let device, let message) = error else {
            throw RigError(description: "expected AudioDeviceError.open, got \(error)")
        }
        #expect(device == missing && !message.isEmpty)
        #expect("\(error)".contains("'\(missing)'"))
        #expect(timing.firstWriteAt == nil && timing.writtenSeconds == 0)

        // The device "comes back" under the same name (a remap sink on the private sink).
        let module = try sink.loadRemap(named: missing)
        defer { _ = try? pactl("unload-module", module) }
        let recorder = try MonitorRecorder(source: sink.monitor)
        let again = await controller.play(.pcm(toneBuffer(1000, seconds: 0.4), kind: .speech))
        try await Task.sleep(for: .milliseconds(100))
        let recording = try recorder.stop()
        guard case .finished = again else { throw RigError(description: "after the sink appeared: \(again)") }
        let heard = recording.windowsWithTone(1000, amplitude: 0.3).count
        #expect(heard >= 37 && heard <= 42)
    }

    @Test("the render tap receives 16 kHz mono frames that match what the sink played")
    func renderTap() async throws {
        let sink = try sink
        let collected = Mutex<[[Int16]]>([])
        let controller = PlaybackController(sink: sink.name) { frame in
            collected.locked { $0.append(Array(frame)) }
        }
        let recorder = try MonitorRecorder(source: sink.monitor)
        let speech = TestSignals.speechLike(seconds: 1, sampleRate: 24000)
        let outcome = await controller.play(
            .pcm(PCMBuffer(format: AudioFormat(sampleRate: 24000), samples: speech), kind: .speech))
        try await Task.sleep(for: .milliseconds(100))
        let recording = try recorder.stop()
        guard case .finished = outcome else { throw RigError(description: "\(outcome)") }

        let frames = collected.locked { $0 }
        #expect(frames.allSatisfy { $0.count == 160 })
        let tap = frames.flatMap { $0 }
        #expect(abs(tap.count - 16000) <= 160, "tap delivered \(tap.count) samples for 1 s")
        // Find the tap inside the capture, 100 ms at a time: align the first loud samples, then
        // take each segment's best normalised correlation from 5 ms before the previous
        // segment's lag to 150 ms after it. A sink that ran dry on a loaded machine put a gap
        // into what the monitor heard (not into the tap) and shifts the rest of the capture.
        let captured = recording.samples.map(Double.init)
        let reference = tap.map(Double.init)
        let tapOnset = try #require(tap.firstIndex { abs(Int($0)) > 1000 })
        let captureOnset = try #require(recording.samples.firstIndex { abs(Int($0)) > 1000 })
        let segment = 1600
        var lag = max(0, captureOnset - tapOnset - 480)
        var correlations: [Double] = []
        for start in stride(from: 0, to: reference.count - segment + 1, by: segment) {
            let piece = reference[start..<(start + segment)]
            let pieceEnergy = piece.reduce(0) { $0 + $1 * $1 }
            // Near-silent stretches of the signal say nothing about where it is.
            guard pieceEnergy / Double(segment) > 500 * 500 else { continue }
            var best = (lag: lag, correlation: -1.0)
            for candidate in max(0, lag - 80)...(lag + 2400) where candidate + start + segment <= captured.count {
                var dot = 0.0
                var energy = 0.0
                for index in 0..<segment {
                    let sample = captured[candidate + start + index]
                    dot += sample * piece[start + index]
                    energy += sample * sample
                }
                let correlation = dot / max((energy * pieceEnergy).squareRoot(), 1)
                if correlation > best.correlation { best = (candidate, correlation) }
            }
            lag = best.lag
            correlations.append(best.correlation)
        }
        print(
            "render tap: \(frames.count) frames, correlation per 100 ms \(correlations.map { ($0 * 100).rounded() / 100 })"
        )
        #expect(correlations.count >= 5, "the signal has at least five loud stretches of 100 ms")
        // A gap falls inside at most a segment or two; a tap that is not what the sink played
        // (another rate, another signal, shifted samples) matches none. PipeWire resamples the
        // 24 kHz stream through its 48 kHz graph to the 16 kHz monitor, a fraction of a sample
        // away from the tap (RigServer.isBitExact): 0.92–0.93 where PulseAudio gives 0.99.
        let threshold = RigServer.current.isBitExact ? 0.9 : 0.8
        #expect(correlations.filter { $0 > threshold }.count >= correlations.count - 2)
    }

    @Test(
        "watchdog: a stalled sink fails the item within the start limit; the next item plays",
        .disabled(
            if: RigServer.current == .pipeWire,
            "pipewire-pulse answers suspend-sink but goes on playing a stream that is open, and the rig has no other way to stall one sink"
        ))
    func stalledSink() async throws {
        let sink = try sink
        let stalled = "ctpb-stalled-\(UInt32.random(in: 0...UInt32.max))"
        let module = try sink.loadRemap(named: stalled)
        defer { _ = try? pactl("unload-module", module) }
        _ = try pactl("suspend-sink", stalled, "1")
        let controller = PlaybackController(sink: stalled)
        let start = ContinuousClock.now
        let outcome = await controller.play(.pcm(toneBuffer(1000, seconds: 1), kind: .speech))
        let elapsed = ContinuousClock.now - start
        print("stalled sink: \(outcome) after \(seconds(elapsed)) s")
        guard case .failed(let error, _) = outcome else { throw RigError(description: "\(outcome)") }
        #expect(error as? PlaybackError == .startTimedOut(milliseconds: 650))
        // The error names the 650 ms limit; the clock only shows it fired rather than hung.
        #expect(elapsed < .seconds(10))

        controller.setSink(sink.name)
        let recorder = try MonitorRecorder(source: sink.monitor)
        let next = await controller.play(.pcm(toneBuffer(1000, seconds: 0.3), kind: .speech))
        try await Task.sleep(for: .milliseconds(100))
        let recording = try recorder.stop()
        guard case .finished = next else { throw RigError(description: "next item: \(next)") }
        #expect(recording.windowsWithTone(1000, amplitude: 0.3).count >= 27)
    }

    @Test("a stream item that delivers a wrong format or throws fails after playing what arrived")
    func streamFailures() async throws {
        let sink = try sink
        let controller = PlaybackController(sink: sink.name)
        let format = AudioFormat(sampleRate: 22050)

        let (wrong, wrongInput) = AsyncThrowingStream<PCMBuffer, any Error>.makeStream()
        wrongInput.yield(toneBuffer(800, seconds: 0.2, sampleRate: 22050))
        wrongInput.yield(toneBuffer(800, seconds: 0.2, sampleRate: 16000))
        wrongInput.finish()
        let mismatch = await controller.play(.stream(wrong, format: format, kind: .speech))
        #expect(mismatch.error as? PlaybackError == .formatMismatch(expected: format, received: .speech))
        #expect(mismatch.timing?.writtenSeconds == 0.2)

        struct SynthesisFailed: Error {}
        let (failing, failingInput) = AsyncThrowingStream<PCMBuffer, any Error>.makeStream()
        failingInput.yield(toneBuffer(800, seconds: 0.1, sampleRate: 22050))
        failingInput.finish(throwing: SynthesisFailed())
        let thrown = await controller.play(.stream(failing, format: format, kind: .speech))
        #expect(thrown.error is SynthesisFailed)
        #expect(thrown.playedSeconds == 0.1)
    }

    @Test("cancelling play()'s task interrupts it; cancelling a queued handle drops only that item; close stops all")
    func cancellation() async throws {
        let sink = try sink
        let controller = PlaybackController(sink: sink.name)
        let task = Task { await controller.play(.pcm(toneBuffer(1000, seconds: 2), kind: .speech)) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let cancelled = await task.value
        guard case .interrupted(let at, _) = cancelled else { throw RigError(description: "\(cancelled)") }
        // Cut before its end (≈ 0.3 s in normally; how far it got depends on the machine's speed).
        #expect(at < 2.0)

        let recorder = try MonitorRecorder(source: sink.monitor)
        let first = controller.enqueue(.pcm(toneBuffer(1000, seconds: 0.3), kind: .speech))
        let second = controller.enqueue(.pcm(toneBuffer(1500, seconds: 0.3), kind: .speech))
        let third = controller.enqueue(.pcm(toneBuffer(2000, seconds: 1), kind: .speech))
        second.cancel()
        let firstOutcome = await first.outcome()
        try await Task.sleep(for: .milliseconds(200))
        controller.close()
        let thirdOutcome = await third.outcome()
        let late = await controller.play(.pcm(toneBuffer(2500, seconds: 0.2), kind: .speech))
        let recording = try recorder.stop()

        guard case .finished = firstOutcome else { throw RigError(description: "first: \(firstOutcome)") }
        guard case .cancelled = await second.outcome() else { throw RigError(description: "second was not cancelled") }
        guard case .interrupted = thirdOutcome else { throw RigError(description: "third: \(thirdOutcome)") }
        #expect(late.error as? PlaybackError == .closed)
        #expect(recording.windowsWithTone(1500, amplitude: 0.3).isEmpty)
        #expect(recording.windowsWithTone(2500, amplitude: 0.3).isEmpty)
        // The third started (the cancelled second was skipped) and close cut it short of its 1 s
        // (≈ 0.2 s normally; how much depends on the machine's speed).
        let thirdHeard = recording.windowsWithTone(2000, amplitude: 0.3).count
        #expect(thirdHeard >= 1 && thirdHeard < 95)
    }
}
