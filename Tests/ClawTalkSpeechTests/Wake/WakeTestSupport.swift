import ClawTalkAudio
import ClawTalkSpeech
import Foundation
import Testing

/// Helpers shared by the keyword-spotting tests.
enum WakeTestSupport {
    /// The shipped microWakeWord models.
    static func models() throws -> [MicroWakeWordModel] {
        try MicroWakeWordModel.loadAll(in: TFLiteRuntimeTests.modelDirectory)
    }

    /// A resolver over Debian's dictionary with the espeak-ng fallback.
    static func resolver() throws -> PronunciationResolver {
        PronunciationResolver(dictionary: try .shared())
    }

    /// A committed 16 kHz fixture clip (`okay-nabu`, `pink-noise`).
    static func fixture(_ name: String) throws -> [Int16] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "wav", subdirectory: "Fixtures"))
        return try WAVFile(data: Data(contentsOf: url)).pcm.samples
    }

    /// Feeds `samples` to `engine` in 20 ms blocks, then finishes the stream.
    static func run(_ engine: any WakeEngine, _ samples: [Int16]) throws -> [WakeHit] {
        try feed(engine, samples) + (try engine.finish())
    }

    /// Feeds `samples` to `engine` in 20 ms blocks; the stream goes on.
    static func feed(_ engine: any WakeEngine, _ samples: [Int16]) throws -> [WakeHit] {
        var hits: [WakeHit] = []
        var start = 0
        while start < samples.count {
            let end = min(start + 320, samples.count)
            hits += try engine.process(Array(samples[start..<end]))
            start = end
        }
        return hits
    }
}

/// A stage-1 engine that reports each scripted hit once the stream passes its time: a protocol
/// peer for the pipeline tests, so they do not depend on an acoustic model's verdict.
final class ScriptedWakeEngine: WakeEngine {
    let name = "scripted"
    private(set) var triggers: [String]
    private var script: [WakeHit]
    private var remaining: [WakeHit]
    private var position = 0
    private(set) var setTriggerCalls: [[String]] = []

    init(triggers: [String], hits: [(trigger: String, at: Double)]) {
        self.triggers = triggers
        script = hits.map { WakeHit(trigger: $0.trigger, engine: "scripted", atSeconds: $0.at, score: 1) }
        remaining = script
    }

    /// An engine that reports `hits` as they are (scores, thresholds) when their time comes.
    init(triggers: [String], script: [WakeHit]) {
        self.triggers = triggers
        self.script = script
        remaining = script
    }

    func setTriggers(_ triggers: [String]) throws {
        self.triggers = triggers
        setTriggerCalls.append(triggers)
    }

    func process(_ samples: UnsafeBufferPointer<Int16>) throws -> [WakeHit] {
        position += samples.count
        let now = Double(position) / 16000
        let due = remaining.filter { $0.atSeconds <= now }
        remaining.removeAll { $0.atSeconds <= now }
        return due
    }

    func finish() throws -> [WakeHit] {
        defer { remaining.removeAll() }
        return remaining
    }

    func reset() throws {
        remaining = script
        position = 0
    }
}
