import ClawTalkAudio
import ClawTalkSupport
import ClawTalkTalk
import Synchronization

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
