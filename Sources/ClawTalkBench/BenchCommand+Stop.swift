public import ClawTalkCommand
import Foundation

extension BenchCommand {
    /// `clawtalk bench stop`.
    public struct Stop: Command {
        /// The command name.
        public static let name = "stop"
        /// One line for OVERVIEW.
        public static let abstract = "Measure how fast the real service stops on SIGTERM while it is busy."
        /// What is measured.
        public static let discussion = """
            Starts this binary's 'clawtalk run' (a fresh one per run, with its own speech server) \
            on a private sound server and loopback rig against a test gateway over TLS on \
            loopback, drives it to --moment and sends SIGTERM: 'transcription' while its speech \
            server transcribes a talk.ptt.start/stop utterance, 'playback' 1 s into an 8 s \
            talk.speak reply clip. Times SIGTERM to the exit (goal: every run within 500 ms) and \
            to the end of the speech server, and reports any server that outlived the node. A \
            run whose moment had passed at the signal (read from the node's log) is left out. \
            With --output each run's node log is kept there. scripts/bench-stop --moment start \
            measures the stop at start-up.
            """
        /// The options.
        public static let options: [OptionSpec] =
            BenchCommand.sessionOptions.filter { ["output", "cache"].contains($0.long) } + [
                .option(
                    "moment", valueName: "moment", help: "When the SIGTERM comes.",
                    allowedValues: StopBench.Moment.allCases.map(\.rawValue), required: true),
                .option("runs", valueName: "n", type: .int, help: "Runs (default 10)."),
            ]

        let options: BenchSession.Options
        let output: String?
        let moment: String?
        let runs: Int?

        /// Reads the arguments.
        public init(parsed: ParsedArguments) {
            options = BenchCommand.sessionOptions(parsed)
            output = parsed.string("output")
            moment = parsed.string("moment")
            runs = parsed.int("runs")
        }

        /// Checks the moment and the run count.
        public func validate() throws {
            if let runs, runs < 1 { throw CLIError.validationFailed("--runs must be at least 1.") }
            guard let moment, StopBench.Moment(rawValue: moment) != nil else {
                let names = StopBench.Moment.allCases.map(\.rawValue).joined(separator: ", ")
                throw CLIError.validationFailed("--moment must be one of \(names).")
            }
        }

        /// Runs the stops.
        public func run(context: CommandContext) async throws -> Int32 {
            let session = try BenchSession(options: options, context: context)
            if let output { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) }
            let metrics = await session.stop(
                moment: StopBench.Moment(rawValue: moment ?? "") ?? .transcription, runs: runs ?? 10,
                keep: output.map { URL(fileURLWithPath: $0) })
            return try BenchCommand.finish(session, metrics: metrics, output: output, context: context)
        }
    }
}
