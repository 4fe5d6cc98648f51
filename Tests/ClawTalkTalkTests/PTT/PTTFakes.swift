import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkSupport
import Synchronization

@testable import ClawTalkTalk

/// What a fake capture plays: frames (then the stream stays open unless `endsStream`).
struct CaptureScript: Sendable {
    var frames: [UtteranceFrame]
    var endsStream = false

    /// `speech` seconds of speech from `speechStart`, then silence until `until` (20 ms frames).
    static func utterance(speechStart: Double = 0.2, speech: Double, until: Double) -> CaptureScript {
        var frames: [UtteranceFrame] = []
        var index = 0
        while Double(index) * 0.02 < until - 1e-9 {
            let time = Double(index) * 0.02
            let isSpeech = time >= speechStart - 1e-9 && time < speechStart + speech - 1e-9
            frames.append(UtteranceFrame(time: time, isSpeech: isSpeech, rms: isSpeech ? 0.1 : 0.0005))
            index += 1
        }
        return CaptureScript(frames: frames)
    }

    /// The same frames `seconds` later.
    func later(by seconds: Double) -> CaptureScript {
        CaptureScript(
            frames: frames.map { UtteranceFrame(time: $0.time + seconds, isSpeech: $0.isSpeech, rms: $0.rms) },
            endsStream: endsStream)
    }

    /// Half a second of speech in one second: a capture with something to transcribe.
    static let spoken = utterance(speech: 0.5, until: 1)

    /// Only silence for `seconds`.
    static func silence(_ seconds: Double) -> CaptureScript {
        utterance(speechStart: 1e9, speech: 0, until: seconds)
    }

    /// These frames, then `other`'s.
    func then(_ other: CaptureScript) -> CaptureScript {
        CaptureScript(frames: frames + other.frames, endsStream: other.endsStream)
    }

    /// Frames from `start` to `end` that the voice detector calls speech at level `rms` (a
    /// voice at 0.1, the reply's residual echo far lower).
    static func speech(from start: Double, to end: Double, rms: Double) -> CaptureScript {
        let count = Int(((end - start) / 0.02).rounded())
        return CaptureScript(
            frames: (0..<count).map { UtteranceFrame(time: start + Double($0) * 0.02, isSpeech: true, rms: rms) })
    }
}

/// A running fake capture: plays its frames, returns 1 s of samples on finish.
final class FakeCapture: UtteranceCapture, Sendable {
    let frames: AsyncStream<UtteranceFrame>
    private let feed = FrameFeed()
    private let ended = Mutex<String?>(nil)
    let samples: [Int16]

    init(script: CaptureScript, samples: [Int16]) {
        let feed = feed
        frames = AsyncStream(unfolding: { await feed.next() })
        self.samples = samples
        self.feed(script)
    }

    /// Plays more frames into the open stream.
    func feed(_ script: CaptureScript) {
        feed.yield(script.frames)
        if script.endsStream { feed.finish() }
    }

    /// Returns once the reader has handled every frame played so far and asks for the next (or
    /// the stream ended): the barrier after which a test may expect that nothing more happens.
    func read() async {
        await feed.drained()
    }

    func snapshot() async -> PCMBuffer {
        PCMBuffer(format: .speech, samples: samples)
    }

    func finish() async -> PCMBuffer {
        ended.locked { $0 = $0 ?? "finished" }
        feed.finish()
        return PCMBuffer(format: .speech, samples: samples)
    }

    func cancel() async {
        ended.locked { $0 = $0 ?? "cancelled" }
        feed.finish()
    }

    /// `finished`, `cancelled` or nil while running.
    var outcome: String? { ended.locked { $0 } }
}

/// The frames of a ``FakeCapture``, handed to its one reader a frame at a time. The reader asking
/// for the next frame tells that it handled the ones before (``drained()``).
final class FrameFeed: Sendable {
    private struct State {
        var queue: [UtteranceFrame] = []
        var finished = false
        var reader: CheckedContinuation<UtteranceFrame?, Never>?
        var idle: [CheckedContinuation<Void, Never>] = []

        /// Whether the reader took everything and waits for more, or the feed ended.
        var isDrained: Bool { finished || (queue.isEmpty && reader != nil) }

        mutating func takeIdle() -> [CheckedContinuation<Void, Never>] {
            defer { idle = [] }
            return isDrained ? idle : []
        }
    }

    private let state = Mutex(State())

    /// Queues `frames` (a waiting reader gets the first at once).
    func yield(_ frames: [UtteranceFrame]) {
        guard !frames.isEmpty else { return }
        let (reader, frame) = state.locked { state -> (CheckedContinuation<UtteranceFrame?, Never>?, UtteranceFrame?) in
            guard !state.finished else { return (nil, nil) }
            state.queue += frames
            guard let reader = state.reader else { return (nil, nil) }
            state.reader = nil
            return (reader, state.queue.removeFirst())
        }
        reader?.resume(returning: frame)
    }

    /// Ends the feed: frames already queued are still read, then nil.
    func finish() {
        let (reader, idle) = state.locked { state in
            state.finished = true
            let reader = state.reader
            state.reader = nil
            return (reader, state.takeIdle())
        }
        reader?.resume(returning: nil)
        for waiter in idle { waiter.resume() }
    }

    /// The next frame, nil once the feed ended (or the reader's task is cancelled).
    func next() async -> UtteranceFrame? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (reader: CheckedContinuation<UtteranceFrame?, Never>) in
                let (ready, idle) = state.locked { state -> (UtteranceFrame??, [CheckedContinuation<Void, Never>]) in
                    if !state.queue.isEmpty { return (.some(state.queue.removeFirst()), []) }
                    if state.finished || Task.isCancelled { return (.some(nil), []) }
                    state.reader = reader
                    return (nil, state.takeIdle())
                }
                if let ready { reader.resume(returning: ready) }
                for waiter in idle { waiter.resume() }
            }
        } onCancel: {
            finish()
        }
    }

    /// Returns once the reader has taken every frame queued so far and asks for the next one, or
    /// the feed ended.
    func drained() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.locked { state in
                if state.isDrained { return true }
                state.idle.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }
}

/// Opens fake captures from a queue of scripts; can fail or hold the open until released.
final class FakeCapturing: UtteranceCapturing, Sendable {
    private struct State {
        var scripts: [CaptureScript] = []
        var failure: (any Error)?
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var captures: [FakeCapture] = []
    }

    private let state = Mutex(State())
    /// Samples every capture returns (1 s at 16 kHz).
    let samples: [Int16]

    /// Captures that play `scripts` in turn; each returns `sampleSeconds` of 16 kHz samples.
    init(_ scripts: CaptureScript..., sampleSeconds: Double = 1) {
        samples = [Int16](repeating: 100, count: Int(sampleSeconds * 16000))
        state.locked { $0.scripts = scripts }
    }

    /// Adds a script for a later capture.
    func append(_ script: CaptureScript) { state.locked { $0.scripts.append(script) } }

    /// The next begin throws `error`.
    func failNext(_ error: any Error) { state.locked { $0.failure = error } }

    /// Opens wait until ``release()``.
    func hold() { state.locked { $0.held = true } }

    /// Lets held opens continue.
    func release() {
        let waiting = state.locked { state in
            state.held = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Opens waiting in ``hold()``.
    var waitingCount: Int { state.locked { $0.waiting.count } }

    func begin() async throws -> any UtteranceCapture {
        await withCheckedContinuation { continuation in
            let go = state.locked { state -> Bool in
                if state.held {
                    state.waiting.append(continuation)
                    return false
                }
                return true
            }
            if go { continuation.resume() }
        }
        let (failure, script) = state.locked { state -> ((any Error)?, CaptureScript) in
            let failure = state.failure
            state.failure = nil
            let script = state.scripts.isEmpty ? CaptureScript(frames: []) : state.scripts.removeFirst()
            return (failure, script)
        }
        if let failure { throw failure }
        let capture = FakeCapture(script: script, samples: samples)
        state.locked { $0.captures.append(capture) }
        return capture
    }

    /// Every capture opened so far.
    var captures: [FakeCapture] { state.locked { $0.captures } }
}

/// Returns a scripted text, or throws, or waits forever (until cancelled).
final class FakeTranscriber: Transcriber, Sendable {
    enum Behaviour: Sendable {
        case text(String)
        case fail(SpeechError)
        case hang
        /// The text after `delay` (a transcriber slower than real time).
        case slow(String, Duration)
    }

    let name = "fake"
    private let behaviour: Mutex<Behaviour>
    private let received = Mutex<[PCMBuffer]>([])
    /// The end-of-turn verdict given when a request asks for one (nil: none, as most engines).
    let verdict = Mutex<Double?>(nil)

    init(_ behaviour: Behaviour = .text("what's on my calendar")) {
        self.behaviour = Mutex(behaviour)
    }

    func set(_ behaviour: Behaviour) { self.behaviour.locked { $0 = behaviour } }

    func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
        received.locked { $0.append(audio) }
        switch behaviour.locked({ $0 }) {
        case .text(let text):
            return Transcript(
                text: text, engine: name, audioSeconds: audio.duration, processingTime: .zero,
                turnComplete: options.detectTurn ? verdict.locked { $0 } : nil)
        case .fail(let error):
            throw error
        case .hang:
            try await Task.sleep(for: .seconds(3600))
            throw CancellationError()
        case .slow(let text, let delay):
            try await Task.sleep(for: delay)
            return Transcript(text: text, engine: name, audioSeconds: audio.duration, processingTime: delay)
        }
    }

    /// The audio of every transcription request.
    var audio: [PCMBuffer] { received.locked { $0 } }
}

/// Records deliveries and answers with a scripted outcome.
final class RecordingDelivery: TranscriptDelivering, Sendable {
    private let outcome: Mutex<DeliveryReceipt.Outcome>
    private let log = Mutex<[(String, TranscriptSource)]>([])

    init(_ outcome: DeliveryReceipt.Outcome = .sent(route: .chatSend)) {
        self.outcome = Mutex(outcome)
    }

    func set(_ outcome: DeliveryReceipt.Outcome) { self.outcome.locked { $0 = outcome } }

    func deliver(_ transcript: String, source: TranscriptSource) async -> DeliveryReceipt {
        log.locked { $0.append((transcript, source)) }
        return DeliveryReceipt(outcome: outcome.locked { $0 }, id: "d-\(transcript.count)")
    }

    var texts: [String] { log.locked { $0.map(\.0) } }
    var sources: [TranscriptSource] { log.locked { $0.map(\.1) } }
}

/// Records the order of speech stops and lease calls.
final class LeaseRecorder: SpeechStopping, WakeListening, TalkPausing, Sendable {
    private let log = Mutex<[String]>([])

    init() {}

    func stopSpeaking(recordInterruption: Bool) async -> Double? {
        log.locked { $0.append(recordInterruption ? "stopSpeech(interruption)" : "stopSpeech") }
        return 1.5
    }

    func suspend() async { log.locked { $0.append("suspendWake") } }
    func resume() async { log.locked { $0.append("resumeWake") } }
    func pauseForPushToTalk() async { log.locked { $0.append("pauseTalk") } }
    func resumeAfterPushToTalk() async { log.locked { $0.append("resumeTalk") } }

    /// A microphone owner that tells this recorder, with Talk mode on or off.
    func microphone(talkOn: Bool) -> MicrophoneClaims {
        var arbiter = MicrophoneArbiter()
        if talkOn { _ = arbiter.handle(.talkEntered) }
        return MicrophoneClaims(arbiter: arbiter, wake: self, talk: self)
    }

    var calls: [String] { log.locked { $0 } }
}
