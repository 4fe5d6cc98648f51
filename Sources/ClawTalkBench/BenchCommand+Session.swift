import ClawTalkCommand

extension BenchCommand {
    /// Options shared by `bench loopback`, `bench cpu` and `bench all`.
    static let sessionOptions: [OptionSpec] = [
        .flag("quick", help: "Run a small subset of every metric (a few minutes)."),
        .option(
            "output", valueName: "dir",
            help: "Write report.json, report.md, report.svg, roc.csv and events.jsonl into this folder."),
        .repeating(
            "trigger", valueName: "word", help: "Trigger to test (repeatable; default: openclaw, claude, computer)."),
        .option("seed", valueName: "n", type: .int, help: "Seed of the generated noise and pauses.", default: "1"),
        .option(
            "cache", valueName: "dir",
            help: "Folder for the generated speech corpus (default: $XDG_CACHE_HOME/clawtalk/bench)."),
        .option(
            "probes", valueName: "n", type: .int,
            help:
                "Probes per latency metric (default 200, 10 with --quick; barge-in, realtime, wake and TTS 50, 5)."),
        .option(
            "exposure", valueName: "seconds", type: .int,
            help:
                "Audio for the self-trigger rate, barge-in's reading alone, realtime's reading alone and idle "
                + "CPU (default 3660, 3660, 1860 and 3600; with --quick 30, 0, 0 and 60)."),
        .option(
            "negatives", valueName: "minutes", type: .int,
            help: "Generated negative speech (read texts) for false accepts (default 60, 3 with --quick)."),
    ]

    /// `--only` (loopback and all).
    static let onlyOption = OptionSpec.option(
        "only", valueName: "metrics",
        help:
            "Loopback metrics to measure, comma-separated name prefixes (e.g. bargein,wake.self_trigger); "
            + "the others are reported as not measured.")

    /// `--bargein-conditions` (loopback and all).
    static let bargeInConditionsOption = OptionSpec.option(
        "bargein-conditions", valueName: "list",
        help:
            "Barge-in conditions, comma-separated: "
            + ServiceBargeInBench.Condition.allCases.map(\.rawValue).joined(separator: ", ")
            + " (default: all; aec-6 with --quick).")

    /// The session options as typed.
    static func sessionOptions(_ parsed: ParsedArguments, dataset: String? = nil) -> BenchSession.Options {
        BenchSession.Options(
            quick: parsed.flag("quick"), seed: UInt64(bitPattern: Int64(parsed.int("seed") ?? 1)),
            triggers: parsed.strings("trigger"), dataset: dataset, cacheDirectory: parsed.string("cache"),
            probes: parsed.int("probes").map { max($0, 1) },
            exposureSeconds: parsed.int("exposure").map { Double(max($0, 1)) },
            negativeMinutes: parsed.int("negatives").map { Double(max($0, 1)) },
            only: parsed.string("only").map { $0.split(separator: ",").map { String($0.filter { !$0.isWhitespace }) } },
            bargeInConditions: parsed.string("bargein-conditions").flatMap { try? bargeInConditions($0) })
    }

    /// The barge-in conditions named in `list`; throws ``CLIError/validationFailed(_:)`` for an
    /// unknown one.
    static func bargeInConditions(_ list: String) throws -> [ServiceBargeInBench.Condition] {
        try list.split(separator: ",").map { name in
            let name = String(name.filter { !$0.isWhitespace })
            guard let condition = ServiceBargeInBench.Condition(rawValue: name) else {
                let known = ServiceBargeInBench.Condition.allCases.map(\.rawValue).joined(separator: ", ")
                throw CLIError.validationFailed("unknown barge-in condition '\(name)' (known: \(known))")
            }
            return condition
        }
    }

    /// Prints the report's Markdown, writes the files when `output` is set, and returns 0.
    static func finish(
        _ session: BenchSession, metrics: [BenchMetric], output: String?, context: CommandContext
    ) throws -> Int32 {
        let report = session.report(metrics: metrics)
        context.io.writeOutput(report.markdown)
        if let output {
            for path in try BenchSession.write(report, events: session.events, to: output) {
                context.io.writeError("bench: wrote \(path)\n")
            }
        }
        return ExitCode.success.rawValue
    }
}
