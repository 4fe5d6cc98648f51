import ClawTalkAudio
import Foundation
import Testing

/// A committed clip in `Fixtures/` with the reference output `scripts/reference-features.py`
/// wrote for it (see `Fixtures/README.md`).
struct WakeFixture {
    /// Reference per-inference output of one model.
    struct ModelReference: Decodable {
        var stride: Int
        var cutoff: Double
        var slidingWindowSize: Int
        /// Dequantised model output, one per inference.
        var probabilities: [Double]
        /// The reference wrapper's sliding-window mean (0 until the window is full).
        var means: [Double]
        /// Index of the first inference whose mean exceeded the cutoff, if any.
        var detectedAtInference: Int?
    }

    private struct Reference: Decodable {
        var source: String
        var sampleRate: Int
        var sampleCount: Int
        var features: [[UInt16]]
        var models: [String: ModelReference]
    }

    /// The clip's samples (16 kHz mono).
    let samples: [Int16]
    /// pymicro-features' uint16 frames.
    let features: [[UInt16]]
    /// pymicro-wakeword's outputs per model id.
    let models: [String: ModelReference]

    /// Loads `Fixtures/<name>.wav` and `Fixtures/<name>.json`.
    init(_ name: String) throws {
        let wavURL = try #require(Bundle.module.url(forResource: name, withExtension: "wav", subdirectory: "Fixtures"))
        let jsonURL = try #require(
            Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        let wav = try WAVFile(data: Data(contentsOf: wavURL))
        #expect(wav.pcm.format == .speech)
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: jsonURL))
        #expect(reference.sampleCount == wav.pcm.samples.count, "fixture \(name): WAV and JSON disagree")
        samples = wav.pcm.samples
        features = reference.features
        models = reference.models
    }

    /// Directory of the shipped microWakeWord models.
    static var modelDirectory: String { TFLiteRuntimeTests.modelDirectory }
}

/// Largest and mean absolute difference between two equally shaped frame lists, and the share
/// of values that are exactly equal.
struct FeatureError: CustomStringConvertible {
    var maximum = 0
    var mean = 0.0
    var exactShare = 0.0
    var count = 0

    init(_ actual: [[UInt16]], _ expected: [[UInt16]]) {
        var total = 0
        var exact = 0
        for (frameA, frameB) in zip(actual, expected) {
            for (a, b) in zip(frameA, frameB) {
                let difference = abs(Int(a) - Int(b))
                maximum = max(maximum, difference)
                total += difference
                exact += difference == 0 ? 1 : 0
                count += 1
            }
        }
        mean = count == 0 ? 0 : Double(total) / Double(count)
        exactShare = count == 0 ? 0 : Double(exact) / Double(count)
    }

    var description: String {
        "max abs error \(maximum), mean abs error \(String(format: "%.4f", mean)), "
            + "exactly equal \(String(format: "%.2f", exactShare * 100)) % of \(count) values"
    }
}
