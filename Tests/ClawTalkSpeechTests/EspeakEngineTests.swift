import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkSupport
import Foundation
import Synchronization
import Testing

extension SpeechEngineTests {
    @Suite struct EspeakEngineTests {
        @Test func rendersSpeechAtTheReportedRate() throws {
            let engine = try SpeechFixtures.espeak.get()
            #expect(engine.sampleRate == 22050)
            let pcm = try SpeechFixtures.speak("hello computer")
            #expect(pcm.format == AudioFormat(sampleRate: engine.sampleRate, channels: 1))
            #expect((0.5...3.0).contains(pcm.duration), "duration \(pcm.duration) s")
            #expect(rms(pcm.samples) > 0.02, "RMS \(rms(pcm.samples))")
            // Speech has pauses and louder parts: not a constant or a clipped square wave.
            let peak = pcm.samples.map { abs(Int($0)) }.max() ?? 0
            #expect(peak > 3000 && peak < 32767)
        }

        @Test func longerTextGivesLongerAudio() throws {
            let short = try SpeechFixtures.speak("hello")
            let long = try SpeechFixtures.speak("hello, this is a considerably longer sentence to say")
            #expect(long.duration > short.duration * 2)
        }

        @Test func slowerRateGivesLongerAudio() throws {
            let engine = try SpeechFixtures.espeak.get()
            let original = engine.rateWPM
            defer { try? engine.setRate(wpm: original) }
            try engine.setRate(wpm: 120)
            let slow = try engine.synthesize("the quick brown fox jumps over the lazy dog")
            try engine.setRate(wpm: 320)
            let fast = try engine.synthesize("the quick brown fox jumps over the lazy dog")
            #expect(engine.rateWPM == 320)
            #expect(slow.duration > fast.duration * 1.5, "slow \(slow.duration) s, fast \(fast.duration) s")
        }

        @Test func unknownVoiceIsRejectedAndTheOldOneKept() throws {
            let engine = try SpeechFixtures.espeak.get()
            let before = engine.voice
            #expect(throws: SpeechError.unknownVoice("xx-no-such-voice")) {
                try engine.setVoice("xx-no-such-voice")
            }
            #expect(engine.voice == before)
            #expect(try engine.synthesize("still speaking").samples.isEmpty == false)
        }

        @Test func listsEnglishVoicesThatCanAllBeSelected() throws {
            let engine = try SpeechFixtures.espeak.get()
            let voices = engine.availableVoices()
            #expect(voices.contains("en-us"))
            #expect(voices.contains("en-gb"))
            #expect(voices.count > 50, "espeak-ng ships about 130 voices")
            let english = voices.filter { $0.hasPrefix("en") }
            for voice in english + ["en-us+klatt3", "en-gb+f3"] {
                #expect(try SpeechFixtures.speak("hi", voice: voice).samples.isEmpty == false, "\(voice)")
            }
        }

        @Test func voicesSoundDifferent() throws {
            let american = try SpeechFixtures.speak("good morning", voice: "en-us")
            let british = try SpeechFixtures.speak("good morning", voice: "en-gb")
            let klatt = try SpeechFixtures.speak("good morning", voice: "en-us+klatt3")
            #expect(american.samples != british.samples)
            #expect(american.samples != klatt.samples)
        }

        @Test func onlyOneEngineMayExist() throws {
            _ = try SpeechFixtures.espeak.get()
            #expect(throws: SpeechError.engineInUse) { _ = try EspeakEngine() }
        }

        @Test func cancelAbortsARunningSynthesis() throws {
            let engine = try SpeechFixtures.espeak.get()
            // About 15 minutes of speech: seconds of work if the cancel were ignored.
            let text = String(repeating: "This sentence is here to keep the synthesizer busy. ", count: 300)
            let outcome = Mutex<Result<PCMBuffer, SpeechError>?>(nil)
            let started = ContinuousClock.now
            let thread = Thread {
                let result = Result { () throws(SpeechError) -> PCMBuffer in
                    do { return try engine.synthesize(text) } catch let error as SpeechError { throw error } catch {
                        throw SpeechError.espeak(operation: "test", message: "\(error)")
                    }
                }
                outcome.locked { $0 = result }
            }
            thread.start()
            // A cancel only affects a synthesis already running, so keep asking until it ends.
            while outcome.locked({ $0 == nil }) {
                engine.cancel()
                Thread.sleep(forTimeInterval: 0.005)
            }
            let elapsed = ContinuousClock.now - started
            // The outcome shows the cancel (an ignored one ends in success); the clock only shows that
            // it ended, whatever the machine's speed.
            #expect(outcome.locked { $0 } == .failure(.cancelled))
            #expect(elapsed < .seconds(30), "took \(elapsed)")
            // The next synthesis is unaffected.
            #expect(try engine.synthesize("back again").samples.isEmpty == false)
        }
    }
}
