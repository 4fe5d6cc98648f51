import ClawTalkAudio
import ClawTalkSpeech
import Foundation
import Testing

extension SpeechEngineTests {
    /// Speech comes from espeak-ng's `en-us+klatt3` variant, resampled by sox: PocketSphinx's
    /// en-us model barely hears espeak's default voices (see architecture.md §7.4), while `klatt2`
    /// and `klatt3` are spotted; `klatt3` caught "computer" and "hey computer" alike.
    @Suite struct PocketSphinxDecoderTests {
        static let voice = "en-us+klatt3"

        /// A fresh keyphrase decoder (cheap without the language model; fresh so earlier
        /// utterances do not shift its cepstral mean).
        static func spotter(threshold: Double = 1e-20) throws -> PocketSphinxDecoder {
            try PocketSphinxDecoder(mode: .keyphrases([.init("computer", threshold: threshold)]))
        }

        @Test(arguments: ["computer", "hey computer"])
        func keyphraseFiresOnSpokenTrigger(text: String) throws {
            let audio = try SpeechFixtures.speakForRecognizer(text, voice: Self.voice)
            #expect(audio.format == .speech)
            #expect(try Self.spotter().transcribe(audio) == "computer")
        }

        @Test(arguments: ["set a timer for ten minutes", "what is the weather like today"])
        func keyphraseStaysQuietOnOtherSpeech(text: String) throws {
            let audio = try SpeechFixtures.speakForRecognizer(text, voice: Self.voice)
            #expect(try Self.spotter().transcribe(audio) == "")
        }

        @Test func keyphraseStaysQuietOnSilence() throws {
            let silence = PCMBuffer(format: .speech, samples: [Int16](repeating: 0, count: 48000))
            #expect(try Self.spotter().transcribe(silence) == "")
        }

        @Test func streamingSpotsThePhraseAfterItIsSpoken() throws {
            let audio = try SpeechFixtures.speakForRecognizer("computer", voice: Self.voice)
            let spotter = try Self.spotter()
            try spotter.startUtterance()
            var firstHit: Int?
            var offset = 0
            while offset < audio.samples.count, firstHit == nil {
                let end = min(offset + 1600, audio.samples.count)  // 100 ms chunks
                try audio.samples[offset..<end].withUnsafeBufferPointer { try spotter.process($0) }
                if spotter.hypothesis()?.text == "computer" { firstHit = end }
                offset = end
            }
            try spotter.endUtterance()
            let hit = try #require(firstHit)
            // The word starts after 1 s of padding, so it cannot be heard before that.
            #expect(hit > 16000, "spotted after \(hit) samples")
            // Restarting the utterance forgets the detection.
            try spotter.startUtterance()
            #expect(spotter.hypothesis() == nil)
            try spotter.endUtterance()
        }

        @Test func dictationTranscribesASentence() throws {
            let decoder = try SpeechFixtures.dictation.get()
            let audio = try SpeechFixtures.speakForRecognizer("set a timer for ten minutes", voice: Self.voice)
            let text = try decoder.transcribe(audio)
            #expect(!text.isEmpty)
            #expect(text.split(separator: " ").count >= 2, "'\(text)'")
            let silence = PCMBuffer(format: .speech, samples: [Int16](repeating: 0, count: 32000))
            #expect(try decoder.transcribe(silence) == "")
        }

        @Test(arguments: [AudioFormat(sampleRate: 22050), AudioFormat(sampleRate: 16000, channels: 2)])
        func wrongFormatIsRejected(format: AudioFormat) throws {
            let buffer = PCMBuffer(format: format, samples: [Int16](repeating: 0, count: 4410))
            #expect(throws: SpeechError.unsupportedFormat(format, expected: .speech)) {
                try Self.spotter().transcribe(buffer)
            }
        }

        @Test func unknownKeyphraseWordNeedsAPronunciation() throws {
            #expect(throws: SpeechError.unknownWord("openclaw")) {
                try PocketSphinxDecoder(mode: .keyphrases([.init("hey openclaw", threshold: 1e-20)]))
            }
            let decoder = try PocketSphinxDecoder(
                mode: .keyphrases([.init("hey openclaw", threshold: 1e-20)]),
                pronunciations: ["openclaw": "OW P AH N K L AO"])
            #expect(decoder.pronunciation(of: "openclaw") == "OW P AH N K L AO")
            #expect(decoder.pronunciation(of: "computer") == "K AH M P Y UW T ER")
            #expect(decoder.pronunciation(of: "zzqxv") == nil)
        }

        @Test func missingModelFileIsReported() throws {
            var model = PocketSphinxDecoder.Model.debianEnglish
            model.dictionary = "/nonexistent/clawtalk.dict"
            #expect(throws: SpeechError.fileNotFound(path: "/nonexistent/clawtalk.dict")) {
                try PocketSphinxDecoder(mode: .languageModel, model: model)
            }
        }

        @Test func processingNeedsAnUtterance() throws {
            let spotter = try Self.spotter()
            let samples = [Int16](repeating: 0, count: 160)
            #expect(throws: SpeechError.self) {
                try samples.withUnsafeBufferPointer { try spotter.process($0) }
            }
        }
    }
}
