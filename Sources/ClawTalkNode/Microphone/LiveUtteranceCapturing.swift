import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTalk
import Dispatch
import Synchronization

/// Push-to-talk captures from a ``CaptureEngine`` (`mic.device`). With an ``AudioFrontEnd`` (as
/// in `run`) the capture goes through it: echo of the node's own playback cancelled, the `clean`
/// signal collected and its VAD deciding speech. Without one (tests), the raw capture with an
/// ``EnergyGate``. The engine starts at the first capture and then keeps running for the
/// service's lifetime, so later captures begin with the pre-roll (≥ 300 ms, `mic.preRollMs`).
package final class LiveUtteranceCapturing: UtteranceCapturing {
    private let configuration: CaptureConfiguration
    /// The running engine, and whether ``stop()`` closed the microphone for good.
    private let engine = Mutex<(current: CaptureEngine?, closed: Bool)>((nil, false))
    private let logger: Logger
    let frontEnd: AudioFrontEnd?
    let levels: VoiceStatusTap?

    /// Captures from `mic`'s source, through `frontEnd` when given; each frame's level goes to
    /// `levels` (the status level meter) when given.
    init(mic: MicSettings, frontEnd: AudioFrontEnd? = nil, levels: VoiceStatusTap? = nil, logger: Logger) {
        self.frontEnd = frontEnd
        self.levels = levels
        configuration = CaptureConfiguration(
            source: mic.device, frameMilliseconds: mic.frameMs, preRollMilliseconds: max(mic.preRollMs, 300))
        self.logger = logger.child(category: "ptt.capture")
    }

    /// Starts the engine if needed (off the caller's task) and begins a capture with the pre-roll.
    /// Throws `TalkError.microphoneUnavailable` when no source can be opened.
    func begin() async throws -> any UtteranceCapture {
        let engine = try await runningEngine()
        let levels = self.levels
        if let frontEnd {
            let frames = Self.forward(frontEnd.frames(), state: ()) { _, frame in
                levels?.record(rms: frame.rms)
                return .init(
                    samples: frame.clean, isSpeech: frame.isSpeech, rms: frame.rms,
                    timestampNanoseconds: frame.timestampNanoseconds, echoActive: frame.echoActive,
                    reference: EchoReference(
                        input: frame.inputRMS, farEnd: frame.farEndRMS, inputBands: frame.inputBands,
                        farEndBands: frame.farEndBands))
            }
            return LiveUtteranceCapture(preRoll: frontEnd.preRoll(), frames: frames)
        }
        let frames = Self.forward(engine.frames(), state: EnergyGate()) { gate, frame in
            let decision = gate.process(frame.samples)
            levels?.record(rms: decision.rms)
            return .init(
                samples: frame.samples, isSpeech: decision.isSpeech, rms: decision.rms,
                timestampNanoseconds: frame.timestampNanoseconds)
        }
        return LiveUtteranceCapture(preRoll: engine.preRoll(), frames: frames)
    }

    /// One capture's frames from `source` (a subscription to the front end or the engine), each
    /// made by `step` as the capture's pump reads it. No task of its own: when the pump is
    /// cancelled (the capture finished or cancelled), its read ends `source`, and with it the
    /// subscription, so nothing outlives the capture.
    static func forward<Source: Sendable, State: Sendable>(
        _ source: AsyncStream<Source>, state: State,
        _ step: @escaping @Sendable (inout State, Source) -> LiveUtteranceCapture.Frame
    ) -> AsyncMapSequence<AsyncStream<Source>, LiveUtteranceCapture.Frame> {
        let state = Mutex(state)
        return source.map { element in state.locked { step(&$0, element) } }
    }

    /// Starts the engine if needed and streams every frame from now on for voice wake: through the
    /// front end the AEC signal for the wake engine, the clean one for speech-to-text, its voice
    /// activity, and `muted` while the node's own playback may be heard without echo control
    /// (talk.md §6.5); without a front end the raw capture with an ``EnergyGate``. Buffers
    /// 20 s, so a slow verifier or transcription delays wake without losing audio.
    func wakeFrames() async throws -> AsyncStream<WakeAudioFrame> {
        let (frames, continuation) = AsyncStream.makeStream(
            of: WakeAudioFrame.self, bufferingPolicy: .bufferingNewest(1000))
        if let frontEnd {
            let source = frontEnd.frames()
            _ = try await runningEngine()
            let echoControlled = frontEnd.echoControlled
            let levels = self.levels
            Task.detached {
                for await frame in source {
                    levels?.record(rms: frame.rms)
                    continuation.yield(
                        WakeAudioFrame(
                            wake: frame.aec, speech: frame.clean, isSpeech: frame.isSpeech,
                            muted: frame.echoActive && !echoControlled, echoActive: frame.echoActive))
                }
                continuation.finish()
            }
            return frames
        }
        let engine = try await runningEngine()
        let source = engine.frames()
        Task.detached {
            var gate = EnergyGate()
            for await frame in source {
                let decision = gate.process(frame.samples)
                self.levels?.record(rms: decision.rms)
                continuation.yield(WakeAudioFrame(wake: frame.samples, isSpeech: decision.isSpeech))
            }
            continuation.finish()
        }
        return frames
    }

    /// The engine's counters and state (nil until the first capture or wake opened it).
    var captureStats: CaptureStats? {
        engine.locked { $0.current }?.stats
    }

    /// Stops the engine for good (service shutdown): a start still waiting for the sound server
    /// gives up, and later captures and wake frames throw `CancellationError` (the microphone
    /// is not unavailable, the service is stopping) instead of opening a new engine.
    func stop() {
        engine.locked { state in
            state.current?.stop()
            state.current = nil
            state.closed = true
        }
    }

    /// The engine, started if needed. Throws `TalkError.microphoneUnavailable` when no source
    /// can be opened, and `CancellationError` once ``stop()`` closed the microphone (also for
    /// a start it interrupted).
    func runningEngine() async throws -> CaptureEngine {
        let opened = self.engine.locked { state -> CaptureEngine? in
            guard !state.closed else { return nil }
            if let current = state.current { return current }
            let created = CaptureEngine(configuration: configuration, backend: PulseCaptureBackend(pacedReads: true))
            state.current = created
            return created
        }
        guard let engine = opened else { throw CancellationError() }
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                DispatchQueue.global().async {
                    do {
                        try engine.start()
                        // Idempotent: a running front end ignores a second start.
                        try self.frontEnd?.start(on: engine)
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } catch {
            let closed = self.engine.locked { state in
                if state.current === engine { state.current = nil }
                return state.closed
            }
            if closed {
                // Not a microphone fault: the stop ended the open (a sound server that had not
                // answered yet, say), noted at info for whoever reads a slow stop.
                logger.info("mic.open.stopped", ["error": .string("\(error)")])
                throw CancellationError()
            }
            logger.warning("ptt.capture.unavailable", ["error": .string("\(error)")])
            throw TalkError.microphoneUnavailable("\(error)")
        }
        return engine
    }
}

/// One capture: collects the samples (pre-roll first) and reports each frame's speech decision.
package final class LiveUtteranceCapture: UtteranceCapture {
    /// One 20 ms frame with its speech decision.
    struct Frame: Sendable {
        var samples: [Int16]
        var isSpeech: Bool
        var rms: Double
        /// The capture engine's stamp (``MonotonicTime``; nil: not known).
        var timestampNanoseconds: UInt64? = nil
        /// The node's own playback may be in the frame (nil: not known, no front end).
        var echoActive: Bool? = nil
        /// The raw capture's level and the far end's (nil: not known, no front end).
        var reference: EchoReference? = nil
    }

    let frames: AsyncStream<UtteranceFrame>
    private let collected: Collected
    private let pump: Task<Void, Never>

    /// The samples so far, shared with the pump task.
    private final class Collected: Sendable {
        struct State {
            var samples: [Int16]
            var done = false
        }

        let state: Mutex<State>

        init(_ samples: [Int16]) {
            state = Mutex(State(samples: samples))
        }
    }

    /// Starts collecting `source` after `preRoll`; frame times count from the pre-roll's start.
    init(preRoll: [Int16], frames source: some AsyncSequence<Frame, Never> & Sendable) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: UtteranceFrame.self, bufferingPolicy: .bufferingNewest(256))
        frames = stream
        let collected = Collected(preRoll)
        self.collected = collected
        let start = Double(preRoll.count) / Double(AudioFormat.speech.sampleRate)
        pump = Task.detached {
            var time = start
            for await frame in source {
                let keep = collected.state.locked { state -> Bool in
                    guard !state.done else { return false }
                    state.samples.append(contentsOf: frame.samples)
                    return true
                }
                // Not `break`: leaving the loop without a cancelled `next()` would not end the
                // subscription under `source`. `finish` and `cancel` cancel the pump, so its next
                // read ends it.
                guard keep else { continue }
                continuation.yield(
                    UtteranceFrame(
                        time: time, isSpeech: frame.isSpeech, rms: frame.rms,
                        timestampNanoseconds: frame.timestampNanoseconds, echoActive: frame.echoActive,
                        reference: frame.reference))
                time += Double(frame.samples.count) / Double(AudioFormat.speech.sampleRate)
            }
            continuation.finish()
        }
    }

    func snapshot() async -> PCMBuffer {
        PCMBuffer(format: .speech, samples: collected.state.locked { $0.samples })
    }

    func finish() async -> PCMBuffer {
        let samples = collected.state.locked { state in
            state.done = true
            return state.samples
        }
        pump.cancel()
        return PCMBuffer(format: .speech, samples: samples)
    }

    func cancel() async {
        collected.state.locked { state in
            state.done = true
            state.samples = []
        }
        pump.cancel()
    }
}
