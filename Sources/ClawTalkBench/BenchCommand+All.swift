public import ClawTalkCommand

extension BenchCommand {
    /// `clawtalk bench all`.
    public struct All: Command {
        /// The command name.
        public static let name = "all"
        /// One line for OVERVIEW.
        public static let abstract = "Run every benchmark and write one report."
        /// What is run and written.
        public static let discussion = """
            Runs the wake benchmark (the recordings under --dataset when present, and generated \
            espeak-ng speech with pink noise, including read licence texts as negatives), the \
            loopback measurements, the CPU measurements and a short run of whole voice turns \
            (bench turn), then writes report.json, report.md \
            (a table per metric, goal beside the measured value), report.svg (latency CDFs and \
            the ROC), roc.csv and events.jsonl (the loopback stamps) into --output, with the \
            machine, commit and corpus manifest hash in the header. A metric that could not be \
            measured is listed with the reason. Progress goes to stderr.
            """
        /// The options.
        public static let options: [OptionSpec] =
            BenchCommand.sessionOptions.filter { $0.long != "output" } + [BenchCommand.onlyOption] + [
                .option(
                    "output", valueName: "dir",
                    help: "Folder for report.json, report.md, report.svg, roc.csv and events.jsonl.",
                    default: "bench-report"),
                .option(
                    "dataset", valueName: "dir", help: "Recorded wake words (MANIFEST.txt).",
                    default: "../shared/data/wakeword"),
                .repeating(
                    "skip", valueName: "family", help: "Leave out a family (listed as not measured; repeatable).",
                    allowedValues: ["wake", "loopback", "cpu", "turn"]),
            ]

        let options: BenchSession.Options
        let output: String
        let skipped: Set<String>

        /// Reads the arguments.
        public init(parsed: ParsedArguments) {
            options = BenchCommand.sessionOptions(
                parsed, dataset: parsed.string("dataset") ?? "../shared/data/wakeword")
            output = parsed.string("output") ?? "bench-report"
            skipped = Set(parsed.strings("skip"))
        }

        /// Runs everything and writes the report.
        public func run(context: CommandContext) async throws -> Int32 {
            let session = try BenchSession(options: options, context: context)
            var metrics: [BenchMetric] = []
            let families: [(String, () async -> [BenchMetric])] = [
                ("wake", session.wake), ("loopback", session.loopback), ("cpu", session.cpu),
                // Whole turns, shortened: 10 probes a route and 3 lost-turn runs (3 and 1 with --quick).
                (
                    "turn",
                    {
                        await session.turn(
                            probes: options.probes ?? (options.quick ? 3 : 10), lostRuns: options.quick ? 1 : 3)
                    }
                ),
            ]
            for (index, (family, run)) in families.enumerated() {
                if skipped.contains(family) {
                    metrics += BenchSession.skipped(family, reason: "skipped (--skip \(family))")
                    continue
                }
                context.io.writeError("bench all: \(family) (\(index + 1)/\(families.count))\n")
                metrics += await run()
            }
            return try BenchCommand.finish(session, metrics: metrics, output: output, context: context)
        }
    }
}
