import ClawTalkAudio
import ClawTalkCommand
import ClawTalkNode
import ClawTalkSpeech
import Foundation

/// Runs `clawtalk bench wake`: every listed file, under every condition, through the same wake
/// pipeline the node runs (``KeywordSpotter`` stage 1, optional ``TranscriptVerifier``, the
/// ``TwoStageWakeDetector`` gate), in file mode as fast as possible: 20 ms blocks, each file its
/// own stream (the pipeline is reset between files).
final class WakeBenchRunner {
    /// Everything a run needs, resolved by the command.
    struct Setup {
        var dataset: WakeDataset
        var triggers: [String]
        var selection: KeywordSpotter.Selection
        /// Noise conditions after the clean one (pink noise at these SNRs, dB).
        var snrs: [Double]
        var verifier: TranscriptVerifier?
        var thresholds: [String: Double]
        var sweep: Bool
        /// Keep only this many evenly spaced sweep thresholds per engine (`bench --quick`).
        var sweepPoints: Int? = nil
        var seed: UInt64
        /// Builds the spotters (models, runtime, pronunciations), as `run` does.
        var factory: WakeDetectorFactory
    }

    /// microWakeWord cutoffs tried by `--threshold-sweep`.
    static let microWakeWordSweep = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99]
    /// PocketSphinx keyphrase thresholds tried by `--threshold-sweep`.
    static let pocketSphinxSweep = [1e-5, 1e-10, 1e-15, 1e-20, 1e-25, 1e-30, 1e-35, 1e-40]

    /// −40 dBFS as a 16-bit level (benchmarks.md §2 truth events).
    static let phraseLevel = 32768 * 0.01

    let setup: Setup
    /// Progress lines (stderr).
    let progress: (String) -> Void

    init(setup: Setup, progress: @escaping (String) -> Void) {
        self.setup = setup
        self.progress = progress
    }

    /// Runs every condition and returns the report (metrics included).
    func run() async throws -> WakeBenchReport {
        let started = Date()
        let cpuStart = Self.cpuSeconds()
        let spotter = try makeSpotter(
            triggers: setup.triggers, selection: setup.selection, thresholds: setup.thresholds)
        let plan = spotter.plan
        let detector = TwoStageWakeDetector(engine: spotter, verifier: setup.verifier)
        let sweeps = setup.sweep ? try makeSweeps(plan: plan) : []
        var engineOf: [(trigger: String, engine: String)] = []
        for trigger in setup.triggers {
            if plan.microWakeWord.contains(trigger) {
                engineOf.append((trigger, MicroWakeWordEngine.engineName))
            } else if plan.scorer.contains(trigger) {
                engineOf.append((trigger, WhisperKeywordEngine.engineName))
            } else if plan.pocketSphinx.contains(trigger) {
                engineOf.append((trigger, PocketSphinxKeywordEngine.engineName))
            }
        }
        var thresholds: [String: Double] = [:]
        for (trigger, _) in engineOf { thresholds[trigger] = spotter.threshold(for: trigger) }

        var conditions: [WakeBenchReport.ConditionRecord] = []
        var metrics: [WakeBenchMetric] = []
        var roc: [WakeBenchReport.ROCPoint] = []
        var audioSeconds = 0.0
        let labels = setup.dataset.labels
        for snr in [nil] + setup.snrs.map(Optional.some) {
            let name = snr.map { "pink-\(Self.format($0))dB" } ?? "clean"
            var files: [WakeBenchReport.FileRecord] = []
            var sweepFiles = [[WakeBenchReport.FileRecord]](repeating: [], count: sweeps.count)
            for (index, entry) in setup.dataset.entries.enumerated() {
                let clean = try load(entry)
                let (start, end) = Self.phraseBounds(clean)
                let samples = snr.map { mix(clean, entry: entry, snr: $0, phrase: start..<end) } ?? clean
                var record = WakeBenchReport.FileRecord(
                    path: entry.path, label: entry.label, durationSeconds: Double(clean.count) / 16000,
                    phraseStartSeconds: end > start ? Double(start) / 16000 : nil,
                    phraseEndSeconds: end > start ? Double(end) / 16000 : nil, detections: [])
                let sentBefore = Self.scorerSegments(spotter)
                record.detections = try await Self.detections(
                    of: detector, samples: samples, verified: setup.verifier != nil)
                if let sentBefore, let sentAfter = Self.scorerSegments(spotter) {
                    record.scorerSegments = sentAfter - sentBefore
                }
                audioSeconds += record.durationSeconds
                files.append(record)
                for (sweepIndex, sweep) in sweeps.enumerated() {
                    var sweepRecord = record
                    sweepRecord.detections = try await Self.detections(
                        of: sweep.detector, samples: samples, verified: false)
                    sweepFiles[sweepIndex].append(sweepRecord)
                }
                if (index + 1) % 50 == 0 || index + 1 == setup.dataset.entries.count {
                    progress("bench wake: \(name) \(index + 1)/\(setup.dataset.entries.count) files\n")
                }
            }
            metrics += WakeBenchEvaluator.metrics(condition: name, files: files, triggers: engineOf, labels: labels)
            // Sweep points grouped by trigger, thresholds in sweep order.
            let order = sweeps.indices.flatMap { index in sweeps[index].triggers.map { (index, $0) } }
                .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
            for (sweepIndex, trigger) in order {
                let sweep = sweeps[sweepIndex]
                let metric = WakeBenchEvaluator.metric(
                    condition: name, files: sweepFiles[sweepIndex], trigger: trigger, engine: sweep.engine,
                    labels: labels)
                roc.append(
                    .init(
                        engine: sweep.engine, trigger: trigger, condition: name, threshold: sweep.threshold,
                        positives: metric.positives, missed: metric.missed, frr: metric.frr,
                        falseAccepts: metric.falseAccepts, faPerHour: metric.faPerHour ?? 0))
            }
            conditions.append(
                .init(
                    name: name, noise: snr == nil ? nil : "pink", snrDb: snr, seed: snr == nil ? nil : setup.seed,
                    files: files))
        }
        var labelCounts: [String: Int] = [:]
        for entry in setup.dataset.entries { labelCounts[entry.label, default: 0] += 1 }
        let engines = [
            WakeBenchReport.EngineInfo(name: MicroWakeWordEngine.engineName, triggers: plan.microWakeWord),
            WakeBenchReport.EngineInfo(name: WhisperKeywordEngine.engineName, triggers: plan.scorer),
            WakeBenchReport.EngineInfo(
                name: PocketSphinxKeywordEngine.engineName,
                triggers: plan.pocketSphinx.filter { !plan.scorer.contains($0) }),
        ].filter { !$0.triggers.isEmpty }
        return WakeBenchReport(
            dataset: .init(
                path: setup.dataset.directory.path, manifestSHA256: setup.dataset.manifestSHA256,
                files: setup.dataset.entries.count, labels: labelCounts),
            engines: engines, thresholds: thresholds, verifier: setup.verifier?.name ?? "none",
            files: conditions.first?.files ?? [], conditions: conditions, metrics: metrics, roc: roc,
            runtime: .init(
                wallSeconds: Date().timeIntervalSince(started), cpuSeconds: Self.cpuSeconds() - cpuStart,
                audioSeconds: audioSeconds, host: Self.host()))
    }

    // MARK: - Pipeline

    func makeSpotter(
        triggers: [String], selection: KeywordSpotter.Selection, thresholds: [String: Double]
    ) throws -> KeywordSpotter {
        try setup.factory.spotter(triggers: triggers, selection: selection, thresholds: thresholds)
    }

    /// One stage-1-only pipeline per engine kind and sweep threshold.
    private func makeSweeps(
        plan: KeywordSpotter.Plan
    ) throws -> [(engine: String, threshold: Double, triggers: [String], detector: TwoStageWakeDetector)] {
        var sweeps: [(String, Double, [String], TwoStageWakeDetector)] = []
        let kinds: [(KeywordSpotter.Selection, String, [String], [Double])] = [
            (.microwakeword, MicroWakeWordEngine.engineName, plan.microWakeWord, Self.microWakeWordSweep),
            (.pocketsphinx, PocketSphinxKeywordEngine.engineName, plan.pocketSphinx, Self.pocketSphinxSweep),
        ]
        for (selection, engine, triggers, values) in kinds where !triggers.isEmpty {
            for value in Self.thin(values, to: setup.sweepPoints) {
                var thresholds: [String: Double] = [:]
                for trigger in triggers { thresholds[trigger] = value }
                let spotter = try makeSpotter(triggers: triggers, selection: selection, thresholds: thresholds)
                sweeps.append((engine, value, triggers, TwoStageWakeDetector(engine: spotter, verifier: nil)))
            }
        }
        return sweeps
    }

    /// `count` evenly spaced values of `values` (first and last included); all without a count.
    static func thin(_ values: [Double], to count: Int?) -> [Double] {
        guard let count, count < values.count else { return values }
        guard count > 1 else { return [values[values.count / 2]] }
        return (0..<count).map { values[$0 * (values.count - 1) / (count - 1)] }
    }

    /// Runs one file through `detector` (reset first); the accepted wakes as records.
    static func detections(
        of detector: TwoStageWakeDetector, samples: [Int16], verified: Bool
    ) async throws -> [WakeBenchReport.Detection] {
        try detector.reset()
        var verdicts: [WakeVerdict] = []
        var start = 0
        while start < samples.count {
            let end = min(start + 320, samples.count)
            verdicts += try await detector.process(Array(samples[start..<end]))
            start = end
        }
        verdicts += try await detector.finish()
        return verdicts.filter(\.isAccepted).map { verdict in
            .init(
                trigger: verdict.hit.trigger, engine: verdict.hit.engine, atSeconds: rounded(verdict.hit.atSeconds),
                score: verdict.hit.score, decidedAtSeconds: verified ? rounded(verdict.decidedAtSeconds) : nil)
        }
    }

    /// Segments sent so far by the spotter's Whisper keyword engine (nil without one).
    static func scorerSegments(_ spotter: KeywordSpotter) -> Int? {
        spotter.engines.lazy.compactMap { $0 as? WhisperKeywordEngine }.first?.segmentsSent
    }

    // MARK: - Audio

    private func load(_ entry: WakeDataset.Entry) throws -> [Int16] {
        let url = setup.dataset.directory.appendingPathComponent(entry.path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CLIError.validationFailed("\(url.path): listed in the manifest but not readable")
        }
        let pcm: PCMBuffer
        do {
            pcm = try WAVFile(data: data).pcm
        } catch {
            throw CLIError.validationFailed("\(url.path): \(error)")
        }
        guard pcm.format == .speech else {
            throw CLIError.validationFailed("\(url.path): \(pcm.format), the benchmark reads 16 kHz mono only")
        }
        return pcm.samples
    }

    /// The clean file with pink noise at `snr` dB relative to the phrase's power; the noise seed
    /// depends on the run's seed, the SNR and the file's path only.
    private func mix(_ clean: [Int16], entry: WakeDataset.Entry, snr: Double, phrase: Range<Int>) -> [Int16] {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in entry.path.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        var noise = PinkNoise(seed: setup.seed ^ hash ^ UInt64(bitPattern: Int64(snr * 1000)))
        return PinkNoise.mix(noise.samples(clean.count), into: clean, snrDB: snr, signalRange: phrase)
    }

    /// Start and end (sample indices) of the phrase: the first and last 10 ms frame whose RMS is
    /// above −40 dBFS (an empty range for a silent file). benchmarks.md §2 takes single samples
    /// on synthetic speech; recorded clips have clicks and noise peaks above −40 dBFS far from
    /// the word (seen in about 3 % of the Picovoice files), which frame RMS ignores.
    static func phraseBounds(_ samples: [Int16]) -> (Int, Int) {
        let frame = 160
        var first: Int?
        var last = 0
        var start = 0
        while start < samples.count {
            let end = min(start + frame, samples.count)
            var sum = 0.0
            for sample in samples[start..<end] { sum += Double(sample) * Double(sample) }
            if (sum / Double(end - start)).squareRoot() > phraseLevel {
                if first == nil { first = start }
                last = end
            }
            start = end
        }
        guard let first else { return (0, 0) }
        return (first, last)
    }

    // MARK: - Helpers

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    private static func rounded(_ seconds: Double) -> Double {
        (seconds * 1000).rounded() / 1000
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }

    private static func host() -> String {
        let info = ProcessInfo.processInfo
        return "\(info.activeProcessorCount) cores, \(info.operatingSystemVersionString)"
    }
}
