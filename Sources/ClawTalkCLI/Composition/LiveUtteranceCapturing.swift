import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTalk
import Dispatch
import Synchronization

/// Push-to-talk captures straight from a ``CaptureEngine`` (`mic.device`), with speech decided
/// per frame by an ``EnergyGate``: the interim front end until the echo-cancelling one replaces
/// it. The engine starts at the first capture and then keeps running for the service's
/// lifetime, so later captures begin with the engine's pre-roll (≥ 300 ms, `mic.preRollMs`).
final class LiveUtteranceCapturing: UtteranceCapturing {
    private let configuration: CaptureConfiguration
    private let engine = Mutex<CaptureEngine?>(nil)
    private let logger: Logger

    /// Captures from `mic`'s source.
    init(mic: MicSettings, logger: Logger) {
        configuration = CaptureConfiguration(
            source: mic.device, frameMilliseconds: mic.frameMs, preRollMilliseconds: max(mic.preRollMs, 300))
        self.logger = logger.child(category: "ptt.capture")
    }

    /// Starts the engine if needed (off the caller's task) and begins a capture with the pre-roll.
    /// Throws `TalkError.microphoneUnavailable` when no source can be opened.
    func begin() async throws -> any UtteranceCapture {
        let engine = try await runningEngine()
        let frames = engine.frames()
        return LiveUtteranceCapture(preRoll: engine.preRoll(), frames: frames)
    }

    /// Stops the engine (service shutdown).
    func stop() {
        engine.withLock { engine in
            engine?.stop()
            engine = nil
        }
    }

    private func runningEngine() async throws -> CaptureEngine {
        let engine = self.engine.withLock { engine in
            if let engine { return engine }
            let created = CaptureEngine(configuration: configuration)
            engine = created
            return created
        }
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                DispatchQueue.global().async {
                    do {
                        try engine.start()
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } catch {
            self.engine.withLock { current in
                if current === engine { current = nil }
            }
            logger.warning("ptt.capture.unavailable", ["error": .string("\(error)")])
            throw TalkError.microphoneUnavailable("\(error)")
        }
        return engine
    }
}

/// One capture over the engine's frames: collects the samples (pre-roll first) and reports each
/// frame's energy-gate decision.
final class LiveUtteranceCapture: UtteranceCapture {
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
    init(preRoll: [Int16], frames source: AsyncStream<CapturedFrame>) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: UtteranceFrame.self, bufferingPolicy: .bufferingNewest(256))
        frames = stream
        let collected = Collected(preRoll)
        self.collected = collected
        let start = Double(preRoll.count) / Double(AudioFormat.speech.sampleRate)
        pump = Task.detached {
            var gate = EnergyGate()
            var time = start
            for await frame in source {
                let keep = collected.state.withLock { state -> Bool in
                    guard !state.done else { return false }
                    state.samples.append(contentsOf: frame.samples)
                    return true
                }
                guard keep else { break }
                let decision = gate.process(frame.samples)
                continuation.yield(UtteranceFrame(time: time, isSpeech: decision.isSpeech, rms: decision.rms))
                time += Double(frame.samples.count) / Double(AudioFormat.speech.sampleRate)
            }
            continuation.finish()
        }
    }

    func finish() async -> PCMBuffer {
        let samples = collected.state.withLock { state in
            state.done = true
            return state.samples
        }
        pump.cancel()
        return PCMBuffer(format: .speech, samples: samples)
    }

    func cancel() async {
        collected.state.withLock { state in
            state.done = true
            state.samples = []
        }
        pump.cancel()
    }
}
