import ClawTalkSpeech
import Foundation
import Testing

@Suite struct MicroWakeWordDetectorTests {
    /// Largest accepted difference between our per-inference probabilities and pymicro-wakeword's:
    /// the features are identical, so the outputs are too, up to the fixture's 6-decimal rounding.
    static let probabilityTolerance = 1e-6

    static func models(_ ids: [String]) throws -> [MicroWakeWordModel] {
        try ids.map { try MicroWakeWordModel(manifestAt: WakeFixture.modelDirectory + "/\($0).json") }
    }

    static func detector(
        _ ids: [String], options: MicroWakeWordDetector.Options = .init()
    ) throws -> MicroWakeWordDetector {
        try MicroWakeWordDetector(models: models(ids), runtime: TFLiteRuntime.shared(), options: options)
    }

    /// Runs `samples` through `detector` in chunks, collecting detections and inferences.
    static func run(
        _ detector: MicroWakeWordDetector, _ samples: [Int16], chunk: Int = 1600
    ) throws -> (detections: [WakeDetection], inferences: [WakeInference]) {
        var inferences: [WakeInference] = []
        detector.onInference = { inferences.append($0) }
        defer { detector.onInference = nil }
        var detections: [WakeDetection] = []
        var start = 0
        while start < samples.count {
            let end = min(start + chunk, samples.count)
            detections += try detector.process(Array(samples[start..<end]))
            start = end
        }
        return (detections, inferences)
    }

    /// Compares our inferences of `id` with the fixture's reference, returning the largest
    /// probability difference.
    static func compare(_ inferences: [WakeInference], with fixture: WakeFixture, model id: String) throws -> Double {
        let reference = try #require(fixture.models[id], "fixture lacks \(id)")
        let ours = inferences.filter { $0.modelID == id }
        #expect(ours.count == reference.probabilities.count, "\(id): inference count")
        let worst = zip(ours, reference.probabilities).map { abs($0.probability - $1) }.max() ?? 0
        // Means agree until our first detection (we empty the window there, the wrapper does not).
        let firstDetection = reference.detectedAtInference ?? ours.count
        for (index, (inference, mean)) in zip(ours, reference.means).enumerated()
        where index <= firstDetection && index >= reference.slidingWindowSize - 1 {
            #expect(abs((inference.mean ?? -1) - mean) <= probabilityTolerance, "\(id) mean at inference \(index)")
        }
        return worst
    }

    @Test func okayNabuClipFiresOkayNabuOnlyAndTracksTheReference() throws {
        let fixture = try WakeFixture("okay-nabu")
        let ids = ["okay_nabu", "hey_jarvis", "alexa", "hey_mycroft"]
        let detector = try Self.detector(ids)
        let (detections, inferences) = try Self.run(detector, fixture.samples)
        #expect(detections.map(\.modelID) == ["okay_nabu"])
        let detection = try #require(detections.first)
        #expect(detection.wakeWord == "Okay Nabu")
        #expect(detection.probability > 0.85)
        // The phrase is spoken between 1 s and about 2 s.
        #expect((1.2...2.3).contains(detection.timestamp), "at \(detection.timestamp) s")
        // Same inference as the reference's first detection.
        let reference = try #require(fixture.models["okay_nabu"])
        let index = inferences.filter { $0.modelID == "okay_nabu" }.firstIndex { $0.timestamp == detection.timestamp }
        #expect(index == reference.detectedAtInference)
        for id in ids {
            let worst = try Self.compare(inferences, with: fixture, model: id)
            print("\(id) on okay-nabu: max |p − p_ref| = \(worst) over \(reference.probabilities.count) inferences")
            #expect(worst <= Self.probabilityTolerance, "\(id)")
        }
    }

    @Test func pinkNoiseFiresNothingAndTracksTheReference() throws {
        let fixture = try WakeFixture("pink-noise")
        let ids = ["okay_nabu", "hey_jarvis", "alexa", "hey_mycroft"]
        let (detections, inferences) = try Self.run(Self.detector(ids), fixture.samples)
        #expect(detections.isEmpty)
        for id in ids {
            let worst = try Self.compare(inferences, with: fixture, model: id)
            print("\(id) on pink-noise: max |p − p_ref| = \(worst)")
            #expect(worst <= Self.probabilityTolerance, "\(id)")
        }
    }

    @Test func silenceFiresNothing() throws {
        let detector = try Self.detector(["okay_nabu", "hey_jarvis", "alexa", "hey_mycroft"])
        let (detections, inferences) = try Self.run(detector, [Int16](repeating: 0, count: 48000))
        #expect(detections.isEmpty)
        #expect(inferences.count == 4 * (((48000 - 480) / 160 + 1) / 3))
        #expect(inferences.allSatisfy { $0.probability < 0.5 })
    }

    @Test func chunkSizeDoesNotChangeDetections() throws {
        let samples = try WakeFixture("okay-nabu").samples
        let detector = try Self.detector(["okay_nabu"])
        let whole = try Self.run(detector, samples, chunk: samples.count)
        for chunk in [160, 333, 4000] {
            try detector.reset()
            let chunked = try Self.run(detector, samples, chunk: chunk)
            #expect(chunked.detections == whole.detections, "chunk \(chunk)")
            #expect(chunked.inferences == whole.inferences, "chunk \(chunk)")
        }
        #expect(whole.detections.count == 1)
    }

    @Test func refractoryPeriodSuppressesRepeats() throws {
        // The clip twice: the second "okay nabu" comes about 3 s after the first.
        let clip = try WakeFixture("okay-nabu").samples
        let twice = clip + clip
        let short = try Self.run(Self.detector(["okay_nabu"], options: .init(refractoryPeriod: 2)), twice)
        #expect(short.detections.count == 2)
        if short.detections.count == 2 {
            let gap = short.detections[1].timestamp - short.detections[0].timestamp
            #expect(abs(gap - Double(clip.count) / 16000) < 0.1, "gap \(gap) s")
        }
        let long = try Self.run(Self.detector(["okay_nabu"], options: .init(refractoryPeriod: 4)), twice)
        #expect(long.detections.count == 1)
    }

    @Test func cutoffOverrideApplies() throws {
        let clip = try WakeFixture("okay-nabu").samples
        let strict = try Self.detector(["okay_nabu"], options: .init(cutoffs: ["okay_nabu": 0.999]))
        #expect(strict.cutoff(for: "okay_nabu") == 0.999)
        #expect(strict.cutoff(for: "alexa") == nil)
        #expect(try Self.run(strict, clip).detections.isEmpty)
        let lenient = try Self.detector(["okay_nabu"])
        #expect(lenient.cutoff(for: "okay_nabu") == 0.85)
        #expect(try Self.run(lenient, clip).detections.count == 1)
        #expect(throws: SpeechError.self) {
            try Self.detector(["okay_nabu"], options: .init(cutoffs: ["okay_nabu": 1.5]))
        }
    }

    @Test func resetRestartsStreamAndClock() throws {
        let clip = try WakeFixture("okay-nabu").samples
        let detector = try Self.detector(["okay_nabu"])
        let first = try Self.run(detector, clip)
        #expect(detector.samplesProcessed == clip.count)
        try detector.reset()
        #expect(detector.samplesProcessed == 0)
        let second = try Self.run(detector, clip)
        #expect(second.detections == first.detections)
        #expect(second.inferences == first.inferences)
    }

    @Test func performanceSanity() throws {
        // Real-time factor for 10 s of audio with one model (printed, not asserted).
        let clip = try WakeFixture("pink-noise").samples
        var samples: [Int16] = []
        while samples.count < 160_000 { samples += clip }
        samples = Array(samples.prefix(160_000))
        let detector = try Self.detector(["okay_nabu"])
        let start = ContinuousClock.now
        let detections = try detector.process(samples)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        print("MicroWakeWordDetector (frontend + okay_nabu): 10 s of audio in \(elapsed), RTF \(seconds / 10)")
        #expect(detections.isEmpty)
        #expect(detector.samplesProcessed == 160_000)
    }
}
