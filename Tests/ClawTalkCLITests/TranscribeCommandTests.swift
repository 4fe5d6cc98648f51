import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Glibc
import Testing

/// `clawtalk transcribe` as a child process, on speech made by the espeak-ng and sox tools.
@Suite("clawtalk transcribe", .serialized)
struct TranscribeCommandTests {
    /// The installed Wyoming server and Whisper model (scripts/setup, scripts/fetch-whisper-model).
    static let dataDirectory = XDGPaths().dataDirectory
    static let whisperInstalled =
        FileManager.default.isExecutableFile(atPath: dataDirectory + "/venv/bin/wyoming-faster-whisper")
        && FileManager.default.fileExists(atPath: dataDirectory + "/models/whisper-base/model.bin")

    /// Speaks `text` with the espeak-ng tool and converts it with sox to 44.1 kHz stereo (so the
    /// command's downmix and resampling run), with 1 s of silence each side.
    static func speechFile(_ text: String, voice: String, in directory: URL) throws -> URL {
        let raw = directory.appendingPathComponent("espeak.wav")
        let clip = directory.appendingPathComponent("speech.wav")
        try tool("espeak-ng", ["-v", voice, "-w", raw.path, text])
        try tool("sox", [raw.path, "-r", "44100", "-c", "2", "-b", "16", clip.path, "pad", "1", "1"])
        return clip
    }

    static func tool(_ name: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(name) \(arguments) failed")
    }

    static func withScratch<T>(_ body: (URL, TemporaryHome) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("transcribe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let home = try TemporaryHome()
        defer {
            try? FileManager.default.removeItem(at: directory)
            home.remove()
        }
        return try await body(directory, home)
    }

    @Test func pocketSphinxTranscribesAStereo44kClip() async throws {
        try await Self.withScratch { directory, home in
            let clip = try Self.speechFile("set a timer for ten minutes", voice: "en-us+klatt3", in: directory)
            let result = try await ClawTalkBinary.run(
                ["transcribe", "--engine", "pocketsphinx", clip.path], environment: home.environment)
            #expect(result.status == 0, "\(result.error)")
            let words = result.output.split(whereSeparator: \.isWhitespace)
            #expect(words.count >= 2, "'\(result.output)'")
            #expect(result.output.hasSuffix("\n") && result.output.split(separator: "\n").count == 1)
            let report = result.error.split(separator: "\n")
            #expect(report.count == 1, "\(result.error)")
            #expect(result.error.hasPrefix("engine: pocketsphinx (en-us language model) in "), "\(result.error)")
            #expect(result.error.hasSuffix(" s\n"))
        }
    }

    @Test func anUnreachableServerFallsBackWithoutEngineAndFailsWithIt() async throws {
        try await Self.withScratch { directory, home in
            let clip = try Self.speechFile("computer", voice: "en-us+klatt3", in: directory)
            let port = closedLoopbackPort()
            var environment = home.environment
            environment["CLAWTALK_STT_WYOMING_PORT"] = "\(port)"
            let strict = try await ClawTalkBinary.run(
                ["transcribe", "--engine", "wyoming", clip.path], environment: environment)
            #expect(strict.status == 69)
            #expect(strict.output.isEmpty)
            #expect(
                strict.error.hasPrefix("Error: speech-to-text server unreachable at 127.0.0.1:\(port) "),
                "\(strict.error)")
            #expect(strict.error.contains("stt.wyomingSocket"))
            let fallback = try await ClawTalkBinary.run(["transcribe", clip.path], environment: environment)
            #expect(fallback.status == 0, "\(fallback.error)")
            #expect(fallback.error.hasPrefix("engine: pocketsphinx (en-us language model) in "), "\(fallback.error)")
            #expect(
                fallback.error.contains("\nfallback: wyoming: speech-to-text server unreachable at 127.0.0.1:\(port) "))
        }
    }

    @Test func badInputIsAClearError() async throws {
        try await Self.withScratch { directory, home in
            let missing = try await ClawTalkBinary.run(
                ["transcribe", directory.appendingPathComponent("none.wav").path], environment: home.environment)
            #expect(missing.status == 64)
            #expect(missing.error.contains("no such file"))
            let garbage = directory.appendingPathComponent("garbage.wav")
            try Data("RIFF but not really a wave file".utf8).write(to: garbage)
            let unreadable = try await ClawTalkBinary.run(["transcribe", garbage.path], environment: home.environment)
            #expect(unreadable.status == 1)
            #expect(unreadable.error.hasPrefix("Error: cannot transcribe '\(garbage.path)': "), "\(unreadable.error)")
            let conflict = try await ClawTalkBinary.run(
                ["transcribe", "--engine", "pocketsphinx", "--start-server", garbage.path],
                environment: home.environment)
            #expect(conflict.status == 64)
            let engine = try await ClawTalkBinary.run(
                ["transcribe", "--engine", "vosk", garbage.path], environment: home.environment)
            #expect(engine.status == 64)
            #expect(engine.error.contains("'vosk'"))
        }
    }

    /// The real server and model, started by the command itself for this one transcription.
    @Test(.enabled(if: whisperInstalled, "needs scripts/setup and scripts/fetch-whisper-model"))
    func wyomingTranscribesWithAServerItStarts() async throws {
        try await Self.withScratch { directory, home in
            let clip = try Self.speechFile("set a timer for ten minutes", voice: "en-us", in: directory)
            var environment = home.environment
            environment["XDG_DATA_HOME"] = XDGPaths().dataHome
            let result = try await ClawTalkBinary.run(
                ["transcribe", "--engine", "wyoming", "--start-server", "--language", "en", clip.path],
                environment: environment)
            #expect(result.status == 0, "\(result.error)")
            let text = result.output.lowercased()
            // Whisper's wording of espeak-ng speech varies a little: one key word is enough.
            #expect(text.contains("timer") || text.contains("minutes"), "'\(result.output)'")
            #expect(result.error.hasPrefix("server: clawtalk-speech on 127.0.0.1:"), "\(result.error)")
            #expect(result.error.contains("\nengine: wyoming (clawtalk-speech tiny-en) in "), "\(result.error)")
        }
    }
}
