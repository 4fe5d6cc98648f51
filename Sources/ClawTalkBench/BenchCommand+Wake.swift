public import ClawTalkCommand
import ClawTalkNode
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import Foundation

extension BenchCommand {
    /// `clawtalk bench wake`: wake-word miss rate, false accepts and latency on recorded clips.
    public struct Wake: Command {
        /// The command name.
        public static let name = "wake"
        /// One line for OVERVIEW.
        public static let abstract = "Measure wake-word latency, false rejects and false accepts on the test corpus."
        /// What is measured and written.
        public static let discussion = """
            Reads the recordings listed in <dir>/MANIFEST.txt (./<label>/<file>.wav); the folder \
            named like a trigger holds its positives, every other folder is negative for it. Each \
            file runs through the node's wake pipeline (stage-1 engine, optional transcript \
            verifier, trigger gate) clean and with pink noise at each --noise-snr. Prints, per \
            condition, engine and trigger: missed positives with the Wilson 95 % interval, false \
            accepts on negatives (2 s refractory) per clip and per hour, and detection latency after \
            the phrase end (last 10 ms above -40 dBFS). Progress goes to stderr. Without the \
            dataset it prints a notice and exits 0.
            """
        /// The benchmark's options.
        public static let options: [OptionSpec] = [
            .option(
                "dataset", valueName: "dir", help: "Folder with MANIFEST.txt and one folder per label.",
                default: "../shared/data/wakeword"),
            .repeating(
                "trigger", valueName: "word",
                help: "Trigger to test (repeatable; default: openclaw, claude, computer)."),
            .option(
                "engine", valueName: "name", help: "Stage-1 engine selection.", default: "auto",
                allowedValues: KeywordSpotter.Selection.allCases.map(\.rawValue)),
            .repeating(
                "noise-snr", valueName: "dB", type: .double,
                help: "Add a pink-noise condition at this SNR (repeatable; default 10)."),
            .flag("clean-only", help: "Skip the noise conditions."),
            .option(
                "verify", valueName: "name", help: "Transcript verifier for stage-1 hits.", default: "none",
                allowedValues: ["none", "pocketsphinx", "wyoming"]),
            .repeating(
                "threshold", valueName: "trigger=value",
                help: "Threshold for one trigger, over wake.thresholds (repeatable)."),
            .flag("threshold-sweep", help: "Also sweep stage-1 thresholds (FRR against FA/h)."),
            .option("json", valueName: "file", help: "Write every file's detections and the figures as JSON."),
            .option("limit", valueName: "n", type: .int, help: "Use at most n files per folder."),
            .option("seed", valueName: "n", type: .int, help: "Seed of the generated noise.", default: "1"),
            .flag(
                "generated",
                help:
                    "Use the generated espeak-ng corpus (triggers, near misses, read licence texts) instead of --dataset."
            ),
            .option(
                "cache", valueName: "dir",
                help: "Folder for the generated corpus (default: $XDG_CACHE_HOME/clawtalk/bench)."),
        ]

        /// `--dataset`.
        public var dataset: String
        /// `--trigger` values.
        public var triggers: [String]
        /// `--engine`.
        var engine: KeywordSpotter.Selection
        /// `--noise-snr` values (default 10), empty with `--clean-only`.
        public var snrs: [Double]
        /// `--verify`.
        public var verify: String
        /// `--threshold` values as typed.
        public var thresholdArguments: [String]
        /// `--threshold-sweep`.
        public var sweep: Bool
        /// `--json`.
        public var jsonPath: String?
        /// `--limit`.
        public var limit: Int?
        /// `--seed`.
        public var seed: Int
        /// `--generated`.
        public var generated: Bool
        /// `--cache`.
        public var cache: String?

        /// Reads the arguments.
        public init(parsed: ParsedArguments) {
            dataset = parsed.string("dataset") ?? "../shared/data/wakeword"
            triggers = parsed.strings("trigger")
            engine = parsed.value("engine", as: KeywordSpotter.Selection.self) ?? .auto
            let given = (parsed.values["noise-snr"] ?? []).compactMap { value -> Double? in
                switch value {
                case .double(let number): number
                case .int(let number): Double(number)
                default: nil
                }
            }
            snrs = parsed.flag("clean-only") ? [] : (given.isEmpty ? [10] : given)
            verify = parsed.string("verify") ?? "none"
            thresholdArguments = parsed.strings("threshold")
            sweep = parsed.flag("threshold-sweep")
            jsonPath = parsed.string("json")
            limit = parsed.int("limit")
            seed = parsed.int("seed") ?? 1
            generated = parsed.flag("generated")
            cache = parsed.string("cache")
        }

        /// Thresholds parse; the limit is positive.
        public func validate() throws {
            _ = try parsedThresholds()
            if let limit, limit < 1 { throw CLIError.validationFailed("--limit must be at least 1.") }
        }

        /// Runs the benchmark; exit 0 also when the dataset is absent (after a notice).
        public func run(context: CommandContext) async throws -> Int32 {
            let directory = URL(fileURLWithPath: dataset)
            let source: WakeDataset?
            if generated {
                let session = try BenchSession(
                    options: .init(
                        quick: false, seed: UInt64(bitPattern: Int64(seed)), triggers: triggers, dataset: nil,
                        cacheDirectory: cache), context: context)
                source = try await session.corpus()
            } else {
                source = try WakeDataset.load(directory: directory)
            }
            guard let loaded = source else {
                context.io.writeError(
                    "bench wake: skipped: no dataset at \(directory.path) "
                        + "(\(WakeDataset.manifestName) not found)\n")
                return ExitCode.success.rawValue
            }
            let data = loaded.limited(to: limit)
            let triggers = VoiceWakeTriggers.normalize(triggers)
            let settings = try ConfigLoader(environment: context.environment).load().settings
            var thresholds = settings.wake.thresholds
            thresholds.merge(try parsedThresholds()) { _, flag in flag }
            var factory = try WakeDetectorFactory.load(
                selection: engine, thresholds: thresholds, environment: context.environment
            ) { context.io.writeError("bench wake: \($0)\n") }
            let scorer = await BenchWakeScorer.prepare(
                wake: settings.wake, selection: engine, thresholds: thresholds, environment: context.environment
            ) { context.io.writeError("bench wake: \($0)\n") }
            factory.scorer = scorer.configuration
            let plan = factory.plan(triggers: triggers)
            for trigger in plan.unsupported {
                context.io.writeError("bench wake: '\(trigger)' skipped: no microWakeWord model for it\n")
            }
            guard !plan.microWakeWord.isEmpty || !plan.pocketSphinx.isEmpty else {
                throw CLIError.validationFailed("No trigger can be tested with --engine \(engine.rawValue).")
            }
            let setup = WakeBenchRunner.Setup(
                dataset: data, triggers: plan.tested, selection: engine, snrs: snrs,
                verifier: try await verifier(
                    triggers: triggers, factory: factory, stt: settings.stt,
                    paths: XDGPaths(environment: context.environment)),
                thresholds: thresholds, sweep: sweep, seed: UInt64(bitPattern: Int64(seed)), factory: factory)
            let report: WakeBenchReport
            do {
                report = try await WakeBenchRunner(setup: setup) { context.io.writeError($0) }.run()
                await scorer.stop()
            } catch {
                await scorer.stop()
                throw error
            }
            context.io.writeOutput(report.text)
            if let jsonPath {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                try encoder.encode(report).write(to: URL(fileURLWithPath: jsonPath))
                context.io.writeError("bench wake: wrote \(jsonPath)\n")
            }
            return ExitCode.success.rawValue
        }

        // MARK: - Private

        /// `--threshold trigger=value` pairs.
        private func parsedThresholds() throws -> [String: Double] {
            var result: [String: Double] = [:]
            for argument in thresholdArguments {
                let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, let value = Double(parts[1]), value > 0, value <= 1 else {
                    throw CLIError.validationFailed(
                        "--threshold wants trigger=value with 0 < value <= 1, e.g. computer=1e-20 (got '\(argument)').")
                }
                result[parts[0]] = value
            }
            return result
        }

        /// The `--verify` choice.
        private func verifier(
            triggers: [String], factory: WakeDetectorFactory, stt: STTSettings, paths: XDGPaths
        ) async throws -> TranscriptVerifier? {
            switch verify {
            case "pocketsphinx":
                return try factory.pocketSphinxVerifier(triggers: triggers)
            case "wyoming":
                return try await WakeDetectorFactory.wyomingVerifier(stt: stt, paths: paths, option: "--verify wyoming")
            default:
                return nil
            }
        }
    }
}
