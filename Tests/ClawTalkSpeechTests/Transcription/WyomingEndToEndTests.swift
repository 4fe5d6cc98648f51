import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkSupport
import Foundation
import Testing

/// Gives the end-to-end suite one real `wyoming-faster-whisper` server for the whole run.
struct WhisperServerTrait: SuiteTrait, TestScoping {
    /// The server of the running suite.
    @TaskLocal static var current: WyomingServerProcess?

    /// The installed server and model (scripts/setup, scripts/fetch-whisper-model).
    static let configuration = WyomingServerProcess.Configuration.installed()

    /// Whether the server and model are installed on this machine.
    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: configuration.executable) && configuration.hasModel
    }

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try await WyomingServerProcess.start(Self.configuration)
        print("wyoming-faster-whisper ready on \(server.address) after \(server.startupTime)")
        defer {
            let start = ContinuousClock.now
            server.stop()
            print("wyoming-faster-whisper stopped in \(start.duration(to: .now))")
        }
        try await Self.$current.withValue(server) { try await function() }
    }
}

extension Trait where Self == WhisperServerTrait {
    /// One real Whisper server for the suite.
    static var whisperServer: Self { WhisperServerTrait() }
}

extension SpeechEngineTests {
    /// The real server and model: skipped only where `scripts/fetch-whisper-model` has not run.
    @Suite(
        .serialized, .whisperServer,
        .enabled(
            if: WhisperServerTrait.isInstalled,
            "needs ~/.local/share/clawtalk/venv (scripts/setup) and models/whisper-base (scripts/fetch-whisper-model)"))
    struct WyomingEndToEndTests {
        static func transcriber() throws -> WyomingTranscriber {
            let server = try #require(WhisperServerTrait.current)
            return WyomingTranscriber(configuration: server.transcriberConfiguration)
        }

        @Test func theServerDescribesItsWhisper() async throws {
            let info = try await Self.transcriber().prepare()
            #expect(
                info.summary == "clawtalk-speech tiny-en",
                "stt.model tiny.en by default; base loads for other languages")
            #expect(info.supports(languageCode: "en"))
            #expect(info.supports(languageCode: "de"))
        }

        @Test func aSpokenCommandIsTranscribed() async throws {
            let audio = try SpeechFixtures.speakForRecognizer("set a timer for ten minutes", voice: "en-us")
            let transcript = try await Self.transcriber().transcribe(
                audio, options: TranscriptionOptions(language: "en"))
            let text = transcript.text.lowercased()
            // Whisper's wording of espeak-ng speech varies a little: one key word is enough.
            #expect(text.contains("timer") || text.contains("minutes"), "'\(transcript.text)'")
            #expect(!transcript.discardedAsEcho)
            #expect(transcript.engineDescription == "wyoming (clawtalk-speech tiny-en)")
            // Measured and plausible; how fast is `clawtalk bench`'s business (a busy machine is slower).
            #expect(transcript.processingTime > .zero && transcript.processingTime < .seconds(60))
            print(
                "whisper: '\(transcript.text)' for \(transcript.audioSeconds) s of audio in \(transcript.processingSeconds) s"
            )
        }

        @Test func pinkNoiseWithTheTriggerPromptGivesNoText() async throws {
            let noise = TranscriptionFixtures.pinkNoise(seconds: 3)
            let options = TranscriptionOptions(language: "en", prompt: ["openclaw", "claude", "computer"])
            let transcript = try await Self.transcriber().transcribe(noise, options: options)
            #expect(transcript.text == "", "raw '\(transcript.rawText)'")
            #expect(transcript.discardedAsEcho || transcript.rawText.allSatisfy(\.isWhitespace))
            print("whisper on pink noise: raw '\(transcript.rawText)' in \(transcript.processingSeconds) s")
        }
    }
}

/// Starting the server fails clearly when its pieces are missing (no process is launched).
@Suite struct WyomingServerProcessTests {
    @Test func aMissingModelNamesTheFetchScript() async throws {
        var configuration = WyomingServerProcess.Configuration.installed()
        configuration.executable = "/bin/true"
        configuration.modelDirectory = "/nonexistent/whisper-base"
        do {
            _ = try await WyomingServerProcess.start(configuration)
            Issue.record("started without a model")
        } catch let error as SpeechError {
            #expect("\(error)".contains("scripts/fetch-whisper-model"), "\(error)")
        }
    }

    @Test func aMissingExecutableNamesTheSetupScript() async throws {
        var configuration = WyomingServerProcess.Configuration.installed()
        configuration.executable = "/nonexistent/bin/wyoming-faster-whisper"
        do {
            _ = try await WyomingServerProcess.start(configuration)
            Issue.record("started without an executable")
        } catch let error as SpeechError {
            #expect("\(error)".contains("scripts/setup"), "\(error)")
        }
    }

    @Test func theArgumentsNameTheModelPortAndPrompt() {
        let configuration = WyomingServerProcess.Configuration(
            executable: "/x/wyoming-faster-whisper", modelDirectory: "/d/models/whisper-base", cpuThreads: 2)
        let arguments = configuration.arguments(address: .tcp(host: "127.0.0.1", port: 10301))
        #expect(arguments.starts(with: ["--uri", "tcp://127.0.0.1:10301", "--model", "/d/models/whisper-base"]))
        #expect(arguments.contains("--local-files-only"))
        #expect(arguments.suffix(4) == ["--language", "en", "--initial-prompt", "OpenClaw, Claude, computer."])
    }

    @Test func clawtalkSpeechGetsItsModelsAndLanguage() throws {
        let folder = NSTemporaryDirectory() + "ct-speech-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let paths = XDGPaths(environment: ["XDG_DATA_HOME": folder, "HOME": folder])
        var configuration = WyomingServerProcess.Configuration.installedSpeechServer(paths: paths)
        #expect(configuration.program == .clawtalkSpeech)
        let data = paths.dataDirectory
        #expect(configuration.notInstalledReason?.contains("clawtalk-speech is not installed") == true)
        var arguments = configuration.arguments(address: .unix(path: "/run/user/1000/clawtalk/speech.sock"))
        #expect(
            arguments == [
                "--uri", "unix:///run/user/1000/clawtalk/speech.sock", "--asr-model", data + "/models/whisper-tiny-en",
                "--threads", String(configuration.cpuThreads), "--wake-model", data + "/models/whisper-tiny-en",
                "--language", "en",
            ], "stt.model tiny.en: one Whisper for both; no base or turn model installed: neither passed")
        let turn = try #require(configuration.turnModel)
        try FileManager.default.createDirectory(
            atPath: (turn as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: turn, contents: Data([0]))
        let base = data + "/models/whisper-base"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: base + "/model.bin", contents: Data([0]))
        configuration.logFormat = "%(message)s"
        arguments = configuration.arguments(address: .tcp(host: "127.0.0.1", port: 10302))
        #expect(
            arguments.suffix(8) == [
                "--multilingual-model", base, "--turn-model", turn, "--language", "en", "--log-format", "%(message)s",
            ])
        #expect(configuration.environment["OMP_WAIT_POLICY"] == "PASSIVE")

        let accurate = WyomingServerProcess.Configuration.installedSpeechServer(paths: paths, model: .base)
        arguments = accurate.arguments(address: .tcp(host: "127.0.0.1", port: 10302))
        #expect(arguments.starts(with: ["--uri", "tcp://127.0.0.1:10302", "--asr-model", base]))
        #expect(!arguments.contains("--multilingual-model"), "base is multilingual itself")
        #expect(arguments.contains(data + "/models/whisper-tiny-en"), "the scorer keeps tiny.en")
    }
}
