import ClawTalkAudio
import ClawTalkSpeech
import Foundation
import Testing

/// Parent of every suite that touches espeak-ng: its state is process-global, so these run one
/// at a time (the nested suites live in their own files as extensions).
@Suite(.serialized) struct SpeechEngineTests {}

/// Shared, lazily created engines (espeak-ng allows one per process; the PocketSphinx language
/// model takes ≈ 1.5 s to load).
enum SpeechFixtures {
    static let espeak = Result { try EspeakEngine() }
    static let dictation = Result { try PocketSphinxDecoder(mode: .languageModel) }

    /// Synthesizes `text` with `voice` on the shared engine, restoring its previous voice.
    static func speak(_ text: String, voice: String = "en-us") throws -> PCMBuffer {
        let engine = try espeak.get()
        let previous = engine.voice
        try engine.setVoice(voice)
        defer { try? engine.setVoice(previous) }
        return try engine.synthesize(text)
    }

    /// Synthesizes `text` and converts it with sox to 16 kHz mono with 1 s of silence each side.
    static func speakForRecognizer(_ text: String, voice: String) throws -> PCMBuffer {
        try Sox.resample(speak(text, voice: voice), to: 16000, padSeconds: 1)
    }
}

/// Root-mean-square level of samples, in full-scale units (0...1).
func rms(_ samples: [Int16]) -> Double {
    guard !samples.isEmpty else { return 0 }
    let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    return (sum / Double(samples.count)).squareRoot() / 32768
}

/// The repository root, found from this file's location.
func repositoryRoot(_ file: StaticString = #filePath) -> URL {
    URL(fileURLWithPath: "\(file)").deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}

/// A scratch directory removed by `body`'s end.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("clawtalk-speech-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// Resampling and padding through the `sox` command-line tool (raw s16le in and out).
enum Sox {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func resample(_ buffer: PCMBuffer, to rate: Int, padSeconds: Double = 0) throws -> PCMBuffer {
        try withTemporaryDirectory { directory in
            let input = directory.appendingPathComponent("in.raw")
            let output = directory.appendingPathComponent("out.raw")
            try buffer.samples.withUnsafeBytes { try Data($0).write(to: input) }
            func raw(_ rate: Int, channels: Int) -> [String] {
                ["-t", "raw", "-r", "\(rate)", "-e", "signed-integer", "-b", "16", "-c", "\(channels)", "-L"]
            }
            // -D: no dither, so the conversion is reproducible.
            var arguments = ["-D"] + raw(buffer.format.sampleRate, channels: buffer.format.channels) + [input.path]
            arguments += raw(rate, channels: 1) + [output.path]
            if padSeconds > 0 { arguments += ["pad", "\(padSeconds)", "\(padSeconds)"] }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["sox"] + arguments
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw Failure(description: "sox exited with \(process.terminationStatus)")
            }
            let data = try Data(contentsOf: output)
            let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            return PCMBuffer(format: AudioFormat(sampleRate: rate), samples: samples.map { Int16(littleEndian: $0) })
        }
    }
}
