import ClawTalkCommand
import Foundation
import Testing

@testable import ClawTalkBench

@Suite struct WakeBenchStatisticsTests {
    /// Reference values of the Wilson score interval (z = 1.96).
    @Test(arguments: [
        (0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (1, 97, 0.0018, 0.0561), (97, 97, 0.9619, 1.0),
    ])
    func wilsonInterval(successes: Int, trials: Int, lower: Double, upper: Double) throws {
        let interval = try #require(WakeBenchStatistics.wilson(successes, of: trials))
        #expect(abs(interval.lowerBound - lower) < 0.0005, "\(interval)")
        #expect(abs(interval.upperBound - upper) < 0.0005, "\(interval)")
    }

    @Test func wilsonNeedsTrials() {
        #expect(WakeBenchStatistics.wilson(0, of: 0) == nil)
    }

    /// Exact (Garwood) 95 % limits from chi-square tables.
    @Test(arguments: [(0, 0.0, 3.6889), (1, 0.02532, 5.5716), (10, 4.7954, 18.390), (100, 81.364, 121.63)])
    func poissonInterval(count: Int, lower: Double, upper: Double) {
        let interval = WakeBenchStatistics.poisson(count)
        #expect(abs(interval.lowerBound - lower) <= 0.001 * max(lower, 1), "\(interval)")
        #expect(abs(interval.upperBound - upper) <= 0.001 * upper, "\(interval)")
    }

    @Test func nearestRankPercentiles() throws {
        let summary = try #require(WakeBenchStatistics.summary((1...20).map(Double.init).reversed()))
        #expect(summary.n == 20)
        #expect(summary.p50 == 10)
        #expect(summary.p95 == 19)
        #expect(summary.max == 20)
        #expect(summary.mean == 10.5)
        #expect(WakeBenchStatistics.summary([]) == nil)
    }

    @Test func refractoryMergesDetectionsCloserThanTwoSeconds() {
        #expect(WakeBenchStatistics.distinct([5.0, 0.5, 1.0, 2.4, 2.6, 4.6], refractory: 2) == [0.5, 2.6, 5.0])
    }
}

@Suite struct WakeBenchEvaluatorTests {
    typealias File = WakeBenchReport.FileRecord

    static func file(_ label: String, _ times: [Double], trigger: String = "computer", end: Double = 1.0) -> File {
        File(
            path: "\(label)/x.wav", label: label, durationSeconds: 3600, phraseStartSeconds: 0.5,
            phraseEndSeconds: end,
            detections: times.map { .init(trigger: trigger, engine: "pocketsphinx", atSeconds: $0, score: 1e-20) })
    }

    @Test func countsMissesFalseAcceptsAndLatency() throws {
        let files = [
            Self.file("computer", [1.2]),  // detected 200 ms after the phrase end
            Self.file("computer", [0.9, 1.1]),  // detected at 0.9 (-100 ms)
            Self.file("computer", [2.6]),  // outside [0.5, 2.5]: missed
            Self.file("computer", []),  // missed
            Self.file("computer", [1.0], trigger: "claude"),  // another trigger: missed
            Self.file("alexa", [10, 11, 13]),  // two distinct false accepts
            Self.file("jarvis", []),
        ]
        let metric = WakeBenchEvaluator.metric(
            condition: "clean", files: files, trigger: "Computer", engine: "pocketsphinx",
            labels: ["alexa", "computer", "jarvis"])
        #expect(metric.positiveLabel == "computer")
        #expect(metric.positives == 5)
        #expect(metric.detected == 2)
        #expect(metric.missed == 3)
        #expect(metric.frr == 0.6)
        #expect(metric.detectionsOutsideWindow == 1)
        #expect(metric.negatives == 2)
        #expect(metric.negativeHours == 2)
        #expect(metric.falseAccepts == 2)
        #expect(metric.negativeFilesWithFalseAccept == 1)
        #expect(metric.faPerClip == 1)
        #expect(metric.faPerHour == 1)
        let latency = try #require(metric.latencyMs)
        #expect(latency.n == 2)
        #expect(abs(latency.max - 200) < 1e-6 && abs(latency.p50 + 100) < 1e-6)
    }

    @Test func verifiedDetectionsUseTheDecisionTimeForLatency() throws {
        var file = Self.file("computer", [1.1])
        file.detections[0].decidedAtSeconds = 2.1
        let metric = WakeBenchEvaluator.metric(
            condition: "clean", files: [file], trigger: "computer", engine: "pocketsphinx", labels: ["computer"])
        #expect(abs((metric.latencyMs?.p50 ?? 0) - 1100) < 1e-6)
    }

    @Test func triggerWithoutPositiveFolderHasOnlyNegatives() {
        let metric = WakeBenchEvaluator.metric(
            condition: "clean", files: [Self.file("computer", [1.0], trigger: "claude")], trigger: "claude",
            engine: "pocketsphinx", labels: ["computer"])
        #expect(metric.positiveLabel == nil)
        #expect(metric.positives == 0 && metric.frr == nil && metric.frrCI95 == nil)
        #expect(metric.falseAccepts == 1)
    }
}

@Suite struct WakeDatasetTests {
    @Test func readsTheManifestOnly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dataset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try WakeDataset.load(directory: directory) == nil)
        try "# comment\n./computer/a.wav\n\ncomputer/b.wav\n./smart_mirror/c.wav\n./alexa/d.wav\n"
            .write(to: directory.appendingPathComponent("MANIFEST.txt"), atomically: true, encoding: .utf8)
        let dataset = try #require(try WakeDataset.load(directory: directory))
        #expect(
            dataset.entries.map(\.path) == ["computer/a.wav", "computer/b.wav", "smart_mirror/c.wav", "alexa/d.wav"])
        #expect(dataset.entries.map(\.label) == ["computer", "computer", "smart_mirror", "alexa"])
        #expect(dataset.labels == ["alexa", "computer", "smart_mirror"])
        #expect(dataset.manifestSHA256.count == 64)
        #expect(dataset.limited(to: 1).entries.map(\.path) == ["computer/a.wav", "smart_mirror/c.wav", "alexa/d.wav"])
        try "./a.wav\n".write(to: directory.appendingPathComponent("MANIFEST.txt"), atomically: true, encoding: .utf8)
        #expect(throws: CLIError.self) { try WakeDataset.load(directory: directory) }
    }

    @Test(arguments: [
        ("computer", "computer"), ("Computer!", "computer"), ("hey jarvis", "jarvis"), ("hey_jarvis", "jarvis"),
        ("smart mirror", "smart_mirror"), ("alexa", "alexa"), ("okay snowboy", "snowboy"),
    ])
    func positiveFolders(trigger: String, label: String) {
        let labels = ["alexa", "computer", "jarvis", "smart_mirror", "snowboy", "view_glass"]
        #expect(WakeDataset.positiveLabel(for: trigger, labels: labels) == label)
    }

    @Test(arguments: ["openclaw", "claude", "mirror", "hey"])
    func noPositiveFolder(trigger: String) {
        let labels = ["alexa", "computer", "jarvis", "smart_mirror", "snowboy", "view_glass"]
        #expect(WakeDataset.positiveLabel(for: trigger, labels: labels) == nil)
    }
}

@Suite struct PinkNoiseTests {
    @Test func sameSeedSameNoiseOtherSeedOtherNoise() {
        var a = PinkNoise(seed: 7)
        var b = PinkNoise(seed: 7)
        var c = PinkNoise(seed: 8)
        let first = a.samples(1000)
        #expect(first == b.samples(1000))
        #expect(first != c.samples(1000))
        #expect(first.allSatisfy { abs($0) <= 17 / 4.0 })
    }

    @Test func spectrumFallsWithFrequency() {
        // Pink noise has equal power per octave, so a first difference (a high-pass) keeps far
        // less of it than of white noise, whose difference has twice its power.
        var generator = PinkNoise(seed: 1)
        let noise = generator.samples(64000)
        let power = noise.reduce(0) { $0 + $1 * $1 }
        let differenced = zip(noise.dropFirst(), noise).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
        #expect(differenced / power < 0.5, "\(differenced / power)")
    }

    @Test(arguments: [0.0, 10.0, 20.0])
    func mixHitsTheRequestedSNR(snr: Double) {
        let clean = (0..<16000).map { Int16(6000 * sin(Double($0) * 0.05)) }
        var generator = PinkNoise(seed: 3)
        let noise = generator.samples(clean.count)
        let mixed = PinkNoise.mix(noise, into: clean, snrDB: snr, signalRange: 0..<clean.count)
        let signalPower = clean.reduce(0.0) { $0 + Double($1) * Double($1) }
        let noisePower = zip(mixed, clean).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) }
        #expect(abs(10 * log10(signalPower / noisePower) - snr) < 0.1)
    }
}

@Suite struct PhraseBoundsTests {
    @Test func findsTheLoudPartIgnoringASingleClick() {
        var samples = [Int16](repeating: 0, count: 16000 * 3)
        for index in 16000..<24000 { samples[index] = Int16(3000 * sin(Double(index) * 0.3)) }
        samples[40000] = 3000  // a click above -40 dBFS whose 10 ms RMS stays below it
        let (start, end) = WakeBenchRunner.phraseBounds(samples)
        #expect(start == 16000)
        #expect(end == 24000)
        #expect(WakeBenchRunner.phraseBounds([Int16](repeating: 10, count: 800)) == (0, 0))
    }
}
