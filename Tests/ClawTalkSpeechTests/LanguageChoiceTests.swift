import ClawTalkAudio
import ClawTalkSupport
import Synchronization
import Testing

@testable import ClawTalkSpeech

/// The language chain of talk.md §5.3: gateway locale → stt.language or the system locale → en.
@Suite("Language choice")
struct LanguageChoiceTests {
    @Test(
        arguments: [
            (nil, nil, ["en"]),
            (nil, "de-DE", ["de-DE", "en"]),
            ("fr_FR", "de-DE", ["fr_FR", "de-DE", "en"]),
            ("en-GB", "en-US", ["en-GB"]),
            ("", nil, ["en"]),
            ("pt-BR", nil, ["pt-BR", "en"]),
        ] as [(String?, String?, [String])])
    func theChainInOrderWithoutRepeats(gateway: String?, requested: String?, expected: [String]) {
        #expect(LanguageChoice.chain(gateway: gateway, requested: requested) == expected)
    }

    /// An engine that supports only `supported` and records the language of each request.
    final class Engine: Transcriber {
        let name = "test"
        let supported: Set<String>
        let asked = Mutex<[String?]>([])
        init(supported: Set<String>) { self.supported = supported }
        func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
            asked.locked { $0.append(options.language) }
            guard let code = options.languageCode, supported.contains(code) else {
                throw SpeechError.unsupportedLanguage(options.language ?? "-", engine: name)
            }
            return Transcript(text: "hello", engine: name, audioSeconds: audio.duration, processingTime: .zero)
        }
    }

    @Test func everyRequestCarriesALanguageAndTheGatewayLocaleComesFirst() async throws {
        let engine = Engine(supported: ["en", "fr"])
        let chained = LanguageChainTranscriber(inner: engine)
        let audio = PCMBuffer(format: .speech, samples: [Int16](repeating: 0, count: 1600))
        _ = try await chained.transcribe(audio, options: TranscriptionOptions())
        chained.setGatewayLocale("fr-FR")
        _ = try await chained.transcribe(audio, options: TranscriptionOptions(language: "en-US"))
        #expect(engine.asked.locked { $0 } == ["en", "fr-FR"])
    }

    @Test func anUnsupportedLanguageFallsBackAlongTheChain() async throws {
        let engine = Engine(supported: ["en"])
        let chained = LanguageChainTranscriber(inner: engine)
        chained.setGatewayLocale("xx-YY")
        let audio = PCMBuffer(format: .speech, samples: [Int16](repeating: 0, count: 1600))
        let transcript = try await chained.transcribe(audio, options: TranscriptionOptions(language: "zz"))
        #expect(transcript.text == "hello")
        #expect(engine.asked.locked { $0 } == ["xx-YY", "zz", "en"])
    }
}
