import ClawTalkAudio
import ClawTalkSupport
import ClawTalkTesting
import Synchronization
import Testing

@testable import ClawTalkTalk

/// talk.md §4.3, "drop what was held but not yet spoken": a rewrite of a streamed reply
/// withdraws the discarded draft's segments; those that have not started playing are dropped,
/// and what plays goes on.
@Suite("Speech withdrawals: a rewrite drops queued speech (talk.md §4.3)", .serialized, .timeLimit(.minutes(1)))
struct SpeechWithdrawalsTests {
    /// A local synthesizer whose clips last as long as its script says (default 100 ms).
    final class LengthSynthesizer: LocalSynthesizer {
        let seconds: [String: Double]
        private let log = Mutex<[String]>([])

        init(seconds: [String: Double]) {
            self.seconds = seconds
        }

        var texts: [String] { log.locked { $0 } }

        func synthesize(_ text: String, voice: String, rateWPM: Int) async throws -> PCMBuffer {
            log.locked { $0.append(text) }
            let frames = Int((seconds[text] ?? 0.1) * 16000)
            return PCMBuffer(format: AudioFormat(sampleRate: 16000), samples: [Int16](repeating: 1000, count: frames))
        }

        func cancel() {}
    }

    @Test func withdrawnSegmentsAreDroppedAndThePlayingOneFinishes() async throws {
        // The first sentence plays for 6 s: the two after it are synthesized (or waiting for a
        // permit) but held back from the output, so the rewrite that comes meanwhile drops them.
        let synthesizer = LengthSynthesizer(seconds: ["Let me check.": 6])
        let audio = FakeAudioOutput(realTime: true)
        let speech = SpeechOutput(audio: audio, local: synthesizer)
        let withdrawals = SpeechWithdrawals()
        let (segments, input) = AsyncStream.makeStream(of: SpeechSegment.self)
        let speaking = Task { await speech.speak(segments: segments, withdrawals: withdrawals) }
        for (id, text) in ["Let me check.", "You have three meet.", "Discarded too."].enumerated() {
            input.yield(SpeechSegment(text: text, id: id))
        }
        #expect(await eventually { audio.items.first?.frames.isEmpty == false })
        // The rewrite discards the whole draft, the playing sentence included.
        withdrawals.withdraw([0, 1, 2])
        input.yield(SpeechSegment(text: "You have two meetings.", id: 3))
        input.finish()
        let result = await speaking.value
        #expect(result.outcome == .finished)
        // Heard: the sentence that was playing, whole, then the new draft; nothing in between.
        #expect(audio.items.flatMap(\.frames) == [96000, 1600], "\(audio.items)")
        #expect(synthesizer.texts.first == "Let me check.")
        #expect(synthesizer.texts.last == "You have two meetings.")
    }

    @Test func withoutARewriteEverySegmentPlaysInOrder() async throws {
        let synthesizer = LengthSynthesizer(seconds: ["One.": 0.3, "Two.": 0.2, "Three.": 0.1])
        let audio = FakeAudioOutput(realTime: true)
        let speech = SpeechOutput(audio: audio, local: synthesizer)
        let withdrawals = SpeechWithdrawals()
        let (segments, input) = AsyncStream.makeStream(of: SpeechSegment.self)
        for (id, text) in ["One.", "Two.", "Three."].enumerated() { input.yield(SpeechSegment(text: text, id: id)) }
        input.finish()
        let result = await speech.speak(segments: segments, withdrawals: withdrawals)
        #expect(result.outcome == .finished)
        // One output stream (gapless), each clip whole and in order.
        #expect(audio.items.count == 1)
        #expect(audio.items.flatMap(\.frames) == [4800, 3200, 1600])
        #expect(synthesizer.texts == ["One.", "Two.", "Three."])
    }

    @Test func aSegmentWithdrawnBeforeItIsReadIsNeverSynthesized() async throws {
        let synthesizer = LengthSynthesizer(seconds: [:])
        let audio = FakeAudioOutput()
        let speech = SpeechOutput(audio: audio, local: synthesizer)
        let withdrawals = SpeechWithdrawals()
        let (segments, input) = AsyncStream.makeStream(of: SpeechSegment.self)
        input.yield(SpeechSegment(text: "Stale.", id: 0))
        input.yield(SpeechSegment(text: "Fresh.", id: 1))
        withdrawals.withdraw([0])
        input.finish()
        let result = await speech.speak(segments: segments, withdrawals: withdrawals)
        #expect(result.outcome == .finished)
        #expect(synthesizer.texts == ["Fresh."])
    }
}
