import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

extension SpeechEngineTests {
    /// Engine choice and fallback: real PocketSphinx, real sockets (closed ports, the fake server).
    @Suite struct TranscriberSelectionTests {
        /// One PocketSphinx engine for the suite (its language model takes ≈ 1.5 s to load).
        static let sphinx = PocketSphinxTranscriber()

        /// "set a timer for ten minutes" in the voice PocketSphinx hears best (see its decoder tests).
        static func speech() throws -> PCMBuffer {
            try SpeechFixtures.speakForRecognizer("set a timer for ten minutes", voice: "en-us+klatt3")
        }

        static func settings(engine: STTEngine, port: Int) -> STTSettings {
            var settings = STTSettings()
            settings.engine = engine
            settings.wyomingPort = port
            return settings
        }

        @Test func anUnreachableServerFallsBackToPocketSphinxAndLogsOnce() async throws {
            let port = closedLoopbackPort()
            let sink = RecordingLogSink()
            let transcriber = TranscriberSelector.transcriber(
                for: Self.settings(engine: .wyoming, port: port), logger: Logger(category: "stt", sink: sink),
                pocketSphinx: Self.sphinx)
            let audio = try Self.speech()
            for _ in 0..<2 {
                let transcript = try await transcriber.transcribe(audio)
                #expect(transcript.engine == "pocketsphinx")
                #expect(transcript.engineDescription == "pocketsphinx (en-us language model)")
                #expect(transcript.text.split(separator: " ").count >= 2, "'\(transcript.text)'")
                let reason = try #require(transcript.fallbackReason)
                #expect(reason.hasPrefix("wyoming: speech-to-text server unreachable at 127.0.0.1:\(port)"))
                #expect(abs(transcript.audioSeconds - audio.duration) < 0.001)
            }
            #expect(sink.events == ["stt.fallback"])
        }

        @Test func theServerIsUsedAgainOnceItAnswers() async throws {
            let port = closedLoopbackPort()
            let sink = RecordingLogSink()
            let transcriber = FallbackTranscriber(
                primary: WyomingTranscriber(configuration: .init(port: port)), fallback: Self.sphinx,
                logger: Logger(category: "stt", sink: sink))
            let audio = TranscriptionFixtures.tone(seconds: 0.5)
            #expect(try await transcriber.transcribe(audio).engine == "pocketsphinx")
            #expect(transcriber.isPrimaryDown)
            let server = try FakeWyomingServer(behaviour: .transcript(" Back again."), port: port)
            defer { server.stop() }
            let transcript = try await transcriber.transcribe(audio)
            #expect(transcript.engine == "wyoming")
            #expect(transcript.text == "Back again.")
            #expect(transcript.fallbackReason == nil)
            #expect(!transcriber.isPrimaryDown)
            #expect(sink.events == ["stt.fallback", "stt.recovered"])
        }

        @Test func anExplicitEngineDoesNotFallBack() async throws {
            let port = closedLoopbackPort()
            let transcriber = TranscriberSelector.transcriber(
                for: Self.settings(engine: .pocketsphinx, port: port), engine: .wyoming, strict: true,
                pocketSphinx: Self.sphinx)
            #expect(transcriber.name == "wyoming")
            await #expect(throws: SpeechError.self) {
                _ = try await transcriber.transcribe(TranscriptionFixtures.tone(seconds: 0.2))
            }
        }

        @Test func theGatewayEngineWithoutARelayFallsBack() async throws {
            let port = closedLoopbackPort()
            let transcriber = TranscriberSelector.transcriber(
                for: Self.settings(engine: .gateway, port: port), pocketSphinx: Self.sphinx)
            let transcript = try await transcriber.transcribe(TranscriptionFixtures.tone(seconds: 0.3))
            #expect(transcript.engine == "pocketsphinx")
            let reason = try #require(transcript.fallbackReason)
            #expect(reason.contains("gateway"), "\(reason)")
            #expect(reason.contains("operator connection"), "\(reason)")
            #expect(reason.contains("unreachable at 127.0.0.1:\(port)"), "\(reason)")
            let strict = TranscriberSelector.transcriber(
                for: Self.settings(engine: .gateway, port: port), strict: true, pocketSphinx: Self.sphinx)
            await #expect(
                throws: SpeechError.sttEngineUnavailable(
                    engine: "gateway", reason: TranscriberSelector.gatewayRelayReason)
            ) {
                _ = try await strict.transcribe(TranscriptionFixtures.tone(seconds: 0.3))
            }
        }

        @Test func pocketSphinxOnlyTakesEnglishAt16kHz() async throws {
            await #expect(throws: SpeechError.unsupportedLanguage("de", engine: "pocketsphinx")) {
                _ = try await Self.sphinx.transcribe(
                    TranscriptionFixtures.tone(seconds: 0.2), options: TranscriptionOptions(language: "de-DE"))
            }
            let wrong = PCMBuffer(format: AudioFormat(sampleRate: 8000), samples: [0, 0])
            await #expect(throws: SpeechError.unsupportedFormat(wrong.format, expected: .speech)) {
                _ = try await Self.sphinx.transcribe(wrong)
            }
        }

        /// Against the fake server: language subtags, the server prompt's echo, unsupported languages.
        @Test func wyomingTranscriberFiltersEchoesAndChecksLanguages() async throws {
            let server = try FakeWyomingServer(behaviour: .transcript(" OpenClaw, Claude, computer."))
            defer { server.stop() }
            let transcriber = WyomingTranscriber(configuration: .init(port: server.port))
            let transcript = try await transcriber.transcribe(
                TranscriptionFixtures.tone(seconds: 0.4), options: TranscriptionOptions(language: "en-US"))
            #expect(transcript.text == "")
            #expect(transcript.discardedAsEcho)
            #expect(transcript.rawText == " OpenClaw, Claude, computer.")
            #expect(transcript.engineDescription == "wyoming (faster-whisper base)")
            #expect(server.waitForSessions(2).map(\.types.first) == ["describe", "transcribe"])
            #expect(server.sessions.last?.language == "en")
            await #expect(throws: SpeechError.unsupportedLanguage("xx", engine: "wyoming (faster-whisper base)")) {
                _ = try await transcriber.transcribe(
                    TranscriptionFixtures.tone(seconds: 0.2), options: TranscriptionOptions(language: "xx"))
            }
            // Without a server prompt, the same text is kept.
            let plain = WyomingTranscriber(configuration: .init(port: server.port, serverPrompt: nil))
            #expect(
                try await plain.transcribe(TranscriptionFixtures.tone(seconds: 0.2)).text
                    == "OpenClaw, Claude, computer.")
        }
    }
}
