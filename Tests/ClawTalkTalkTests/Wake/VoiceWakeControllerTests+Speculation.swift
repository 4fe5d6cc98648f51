import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTesting
import Testing

@testable import ClawTalkTalk

/// A command transcribed at its first pause, with an end-of-turn verdict (talk.md §6.4: a final
/// result ends the capture before its 2.0 s of silence).
extension VoiceWakeControllerTests {
    /// PocketSphinx's transcript with a fixed end-of-turn verdict, as clawtalk-speech gives one.
    final class TurnJudging: Transcriber {
        let name = "turn-judging"
        let inner = PocketSphinxTranscriber()
        let verdict: Double
        /// Verdicts given so far.
        let verdicts = Locked(0)
        init(verdict: Double) { self.verdict = verdict }
        func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
            var transcript = try await inner.transcribe(audio, options: options)
            transcript.turnComplete = options.detectTurn ? verdict : nil
            if options.detectTurn { verdicts.update { $0 += 1 } }
            return transcript
        }
    }

    /// The clip's frames up to `after` seconds past its last speech frame, and the rest.
    static func split(_ frames: [WakeAudioFrame], after: Double) -> ([WakeAudioFrame], [WakeAudioFrame]) {
        let last = frames.lastIndex(where: \.isSpeech) ?? 0
        let cut = min(frames.count, last + 1 + Int(after / 0.02))
        return (Array(frames[..<cut]), Array(frames[cut...]))
    }

    @Test func aCompleteVerdictSendsTheCommandBeforeTheSilenceEnds() async throws {
        let directory = try TempDirectory(prefix: "wake")
        let clip = try SpokenClip.wav(Self.phrase, padAfter: 3, in: directory)
        let rig = try await Self.rig(verifier: nil, transcriber: TurnJudging(verdict: 0.9))
        let (spoken, _) = Self.split(try Self.frames(clip), after: 0.5)
        await Self.feed(rig.controller, spoken)
        // 0.5 s of silence is fed, far from the 2.0 s that ends a capture: only the verdict can.
        try await rig.wait("sent", Self.isSent)
        // PocketSphinx hears the command cut 0.2 s after its end as "what i read": the words
        // are its own; what matters is that the command went, without the trigger.
        let message = try #require(await rig.sent().first).lowercased()
        #expect(!message.isEmpty && !message.contains("computer"), "\(message)")
        await rig.stop()
    }

    @Test func anIncompleteVerdictWaitsForTheSilenceWindow() async throws {
        let directory = try TempDirectory(prefix: "wake")
        let clip = try SpokenClip.wav(Self.phrase, padAfter: 3, in: directory)
        let judge = TurnJudging(verdict: 0.1)
        let rig = try await Self.rig(verifier: nil, transcriber: judge)
        let (spoken, rest) = Self.split(try Self.frames(clip), after: 0.5)
        await Self.feed(rig.controller, spoken)
        // The verdict on the command was given (and said: not complete); nothing was sent for it.
        #expect(await eventually { judge.verdicts.value >= 1 })
        #expect(await rig.sent().isEmpty, "not complete: the capture goes on")
        #expect(!rig.events.value.contains(where: Self.isCaptured))
        await Self.feed(rig.controller, rest)
        try await rig.wait("sent", Self.isSent)
        #expect(await rig.sent().count == 1)
        await rig.stop()
    }

    @Test func anIncompleteVerdictEndsTheCaptureAtATalkTurnsSilenceWindow() async throws {
        let directory = try TempDirectory(prefix: "wake")
        let clip = try SpokenClip.wav(Self.phrase, padAfter: 3, in: directory)
        let judge = TurnJudging(verdict: 0.1)
        let rig = try await Self.rig(verifier: nil, transcriber: judge)
        let (spoken, _) = Self.split(try Self.frames(clip), after: 0.9)
        await Self.feed(rig.controller, spoken)
        // 0.9 s of silence: past the 0.7 s second look, far from the 2.0 s window.
        try await rig.wait("sent", Self.isSent)
        #expect(judge.verdicts.value == 1, "one transcription at the pause, looked at again at 0.7 s")
        await rig.stop()
    }
}
