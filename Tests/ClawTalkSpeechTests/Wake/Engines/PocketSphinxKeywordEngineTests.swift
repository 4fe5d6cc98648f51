import ClawTalkAudio
import ClawTalkSpeech
import Foundation
import Testing

extension SpeechEngineTests {
    /// Speech from espeak-ng's `en-us+klatt3` voice, which PocketSphinx's en-us model hears (see
    /// `PocketSphinxDecoderTests`); padded with 1 s of silence on each side.
    @Suite struct PocketSphinxKeywordEngineTests {
        static let voice = "en-us+klatt3"

        @Test func firesOnSpokenComputerAfterTheWord() throws {
            let engine = try PocketSphinxKeywordEngine(triggers: ["Computer"], resolver: WakeTestSupport.resolver())
            let audio = try SpeechFixtures.speakForRecognizer("computer", voice: Self.voice)
            let hits = try WakeTestSupport.run(engine, audio.samples)
            let hit = try #require(hits.first)
            #expect(hits.count == 1)
            #expect(hit.trigger == "Computer")
            #expect(hit.engine == "pocketsphinx")
            #expect(hit.score == 1e-20)
            // The word lies between the 1 s paddings; it is heard after it started.
            #expect(hit.atSeconds > 1.2 && hit.atSeconds < audio.duration, "at \(hit.atSeconds)")
        }

        @Test func staysQuietOnSilenceNoiseAndOtherSpeech() throws {
            let engine = try PocketSphinxKeywordEngine(
                triggers: ["computer", "openclaw"], resolver: WakeTestSupport.resolver())
            #expect(try WakeTestSupport.run(engine, [Int16](repeating: 0, count: 48000)).isEmpty)
            try engine.reset()
            #expect(try WakeTestSupport.run(engine, WakeTestSupport.fixture("pink-noise")).isEmpty)
            try engine.reset()
            let speech = try SpeechFixtures.speakForRecognizer("set a timer for ten minutes", voice: Self.voice)
            #expect(try WakeTestSupport.run(engine, speech.samples).isEmpty)
        }

        @Test func triggerListUpdatesApplyLive() throws {
            let engine = try PocketSphinxKeywordEngine(triggers: ["openclaw"], resolver: WakeTestSupport.resolver())
            #expect(engine.keywords.first?.pronunciations.first?.source == .compound(["open", "claw"]))
            let computer = try SpeechFixtures.speakForRecognizer("computer", voice: Self.voice)
            #expect(try WakeTestSupport.run(engine, computer.samples).isEmpty)
            // No reset: the new search takes over in the running stream and time goes on.
            try engine.setTriggers(["computer"])
            #expect(engine.triggers == ["computer"])
            #expect(engine.keywords.map(\.phrase) == ["computer"])
            let hits = try WakeTestSupport.run(engine, computer.samples)
            #expect(hits.map(\.trigger) == ["computer"])
            #expect(hits.allSatisfy { $0.atSeconds > computer.duration + 1 }, "\(hits)")
        }

        @Test func overlappingKeyphrasesKeepTheLongerOne() throws {
            // "claude" (K L AO D) also completes at the end of "openclaw" (… K L AO).
            let engine = try PocketSphinxKeywordEngine(
                triggers: ["openclaw", "claude"], resolver: WakeTestSupport.resolver())
            let audio = try SpeechFixtures.speakForRecognizer("hey openclaw", voice: Self.voice)
            let hits = try WakeTestSupport.run(engine, audio.samples)
            #expect(hits.map(\.trigger) == ["openclaw"], "\(hits)")
        }

        @Test func thresholdsFollowSyllablesUnlessOverridden() throws {
            let engine = try PocketSphinxKeywordEngine(
                triggers: ["computer", "claude", "hey jarvis", "Open-Claw"],
                options: .init(thresholds: ["open claw": 1e-25]), resolver: WakeTestSupport.resolver())
            #expect(engine.threshold(for: "computer") == 1e-20)
            #expect(engine.threshold(for: "claude") == 1e-5)
            #expect(engine.threshold(for: "hey jarvis") == 1e-20)
            #expect(engine.threshold(for: "openclaw") == 1e-25)
            #expect(engine.keywords.map(\.phrase) == ["computer", "claude", "hey jarvis", "open claw"])
            #expect(throws: WakeError.invalidThreshold(trigger: "computer", value: 0)) {
                try PocketSphinxKeywordEngine(
                    triggers: ["computer"], options: .init(thresholds: ["computer": 0]),
                    resolver: WakeTestSupport.resolver())
            }
        }
    }
}
