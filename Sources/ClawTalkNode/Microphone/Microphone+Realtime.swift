import ClawTalkAudio
import ClawTalkDevices
import ClawTalkTalk

/// Realtime Talk's microphone (talk.md §9.2 item 2): the same capture engine and front end as
/// every other listener, read continuously.
extension Microphone: RealtimeMicrophone {
    /// Every frame from now on: through the front end its echo-cancelled `clean` signal with its
    /// speech decision, far-end activity and double-talk levels; without one the raw capture with
    /// an ``EnergyGate``. The forwarding task and the subscription end when the consumer stops
    /// reading.
    nonisolated func frames() async throws -> AsyncStream<RealtimeMicFrame> {
        let engine = try await runningEngine()
        let levels = self.levels
        let rate = AudioFormat.speech.sampleRate
        let (stream, continuation) = AsyncStream.makeStream(
            of: RealtimeMicFrame.self, bufferingPolicy: .bufferingNewest(250))
        let forwarding: Task<Void, Never>
        if let frontEnd {
            let source = frontEnd.frames()
            forwarding = Task.detached {
                for await frame in source {
                    levels?.record(rms: frame.rms)
                    continuation.yield(
                        RealtimeMicFrame(
                            samples: frame.clean, sampleRate: rate, isSpeech: frame.isSpeech, rms: frame.rms,
                            echoActive: frame.echoActive,
                            reference: EchoReference(frame),
                            timestampNanoseconds: frame.timestampNanoseconds))
                }
                continuation.finish()
            }
        } else {
            let source = engine.frames()
            forwarding = Task.detached {
                var gate = EnergyGate()
                for await frame in source {
                    let decision = gate.process(frame.samples)
                    levels?.record(rms: decision.rms)
                    continuation.yield(
                        RealtimeMicFrame(
                            samples: frame.samples, sampleRate: rate, isSpeech: decision.isSpeech, rms: decision.rms))
                }
                continuation.finish()
            }
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return stream
    }
}
