import ClawTalkSupport
import ClawTalkTalk
import Foundation
import Synchronization

/// A clocked speaker peer: chunks play back to back in real time (a chunk is done when its
/// duration has passed after the previous one's end), ``stop()`` ends everything at once. Records
/// what played, and when, so tests can check marks against played audio.
final class ClockedSpeaker: RealtimeSpeaker {
    struct State {
        var lastEnd = ContinuousClock.now
        var playedChunks = 0
        var playedSamples = 0
        var stops = 0
        var stoppedAt: [ContinuousClock.Instant] = []
        var live: [ObjectIdentifier: ClockedItem] = [:]
        var firstStart: ContinuousClock.Instant?
        /// Pause requests (the clock plays on: pauses are recorded, not simulated).
        var pauses: [Bool] = []
    }

    let state = Mutex(State())

    func enqueue(_ samples: [Int16], sampleRate: Int) -> any RealtimePlaybackItem {
        let duration = Duration.seconds(Double(samples.count) / Double(sampleRate))
        return state.locked { state in
            let start = max(ContinuousClock.now, state.lastEnd)
            state.lastEnd = start + duration
            if state.firstStart == nil { state.firstStart = start }
            let item = ClockedItem(end: start + duration, samples: samples.count, speaker: self)
            state.live[ObjectIdentifier(item)] = item
            return item
        }
    }

    func stop() {
        state.locked { state in
            state.stops += 1
            state.stoppedAt.append(.now)
            for item in state.live.values { item.cancel() }
            state.live = [:]
            state.lastEnd = .now
        }
    }

    func setPaused(_ paused: Bool) {
        state.locked { $0.pauses.append(paused) }
    }

    /// The fake's frames carry no capture stamps: the settle counts in captured audio.
    var silentSinceNanoseconds: UInt64? { nil }

    /// Sound is coming out now.
    var isPlaying: Bool {
        state.locked { state in state.live.values.contains { $0.isSounding } }
    }

    func finished(_ item: ClockedItem, played: Bool) {
        state.locked { state in
            state.live[ObjectIdentifier(item)] = nil
            if played {
                state.playedChunks += 1
                state.playedSamples += item.samples
            }
        }
    }

    var snapshot: State { state.locked { $0 } }
}

/// One chunk of the ``ClockedSpeaker``.
final class ClockedItem: RealtimePlaybackItem {
    let end: ContinuousClock.Instant
    let samples: Int
    private let cancelled = Atomic(false)
    private let speaker: ClockedSpeaker

    init(end: ContinuousClock.Instant, samples: Int, speaker: ClockedSpeaker) {
        self.end = end
        self.samples = samples
        self.speaker = speaker
    }

    var isSounding: Bool {
        !cancelled.load(ordering: .relaxed) && ContinuousClock.now < end
            && ContinuousClock.now >= end - .milliseconds(20)
    }

    func done() async {
        while ContinuousClock.now < end, !cancelled.load(ordering: .relaxed) {
            try? await Task.sleep(for: .milliseconds(2))
        }
        speaker.finished(self, played: !cancelled.load(ordering: .relaxed))
    }

    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }
}

/// A microphone peer: 20 ms frames at 16 kHz in real time, silent (with the speaker's echo flag)
/// unless told to speak. Speech is a loud 200 Hz tone marked as speech by the "front end".
final class ScriptedMicrophone: RealtimeMicrophone {
    private let speechFrames = Mutex(0)
    private let echo: @Sendable () -> Bool?
    /// Each frame's capture stamp lies this far in the past (nil: frames carry no stamp).
    private let captureAge: Duration?
    let framesSent = Atomic(0)

    init(echo: @escaping @Sendable () -> Bool? = { nil }, captureAge: Duration? = nil) {
        self.echo = echo
        self.captureAge = captureAge
    }

    /// Speech frames not yet produced.
    var pendingSpeech: Int { speechFrames.locked { $0 } }

    /// The next `seconds` of frames are speech.
    func speak(seconds: Double) {
        speechFrames.locked { $0 = Int((seconds / 0.02).rounded()) }
    }

    func frames() async throws -> AsyncStream<RealtimeMicFrame> {
        let (stream, continuation) = AsyncStream.makeStream(of: RealtimeMicFrame.self)
        let task = Task { [self] in
            var phase = 0.0
            var next = ContinuousClock.now
            while !Task.isCancelled {
                let speech = speechFrames.locked { count -> Bool in
                    guard count > 0 else { return false }
                    count -= 1
                    return true
                }
                var samples = [Int16](repeating: 0, count: 320)
                if speech {
                    for index in samples.indices {
                        samples[index] = Int16(12_000 * sin(phase))
                        phase += 2 * Double.pi * 200 / 16_000
                    }
                }
                let stamp = captureAge.map { MonotonicTime.nanoseconds() &- UInt64($0.wholeNanoseconds) }
                continuation.yield(
                    RealtimeMicFrame(
                        samples: samples, sampleRate: 16_000, isSpeech: speech, rms: speech ? 0.26 : 0.002,
                        echoActive: echo(), timestampNanoseconds: stamp))
                framesSent.add(1, ordering: .relaxed)
                next += .milliseconds(20)
                try? await Task.sleep(until: next)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
