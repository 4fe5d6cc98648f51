public import ClawTalkCommand
import Foundation

extension BenchCommand {
    /// `clawtalk bench soak`.
    public struct Soak: Command {
        /// The command name.
        public static let name = "soak"
        /// One line for OVERVIEW.
        public static let abstract = "Run the real service for a long stretch with faults coming in."
        /// What is done and measured.
        public static let discussion = """
            Starts this binary's 'clawtalk run' against a test gateway over TLS on loopback, on a \
            private PulseAudio of its own (so it can restart it), with its own Whisper server and \
            keyword scorer from what scripts/setup installed. Every cycle (about a minute): a wake \
            command spoken into the microphone, a talk.ptt.once question, a Talk-mode exchange, \
            then one fault in rotation: gateway restart, stalled ticks, device token revoked and \
            approved again, a closed startup window, the sound server restarted, the capture \
            source removed and added back, the Whisper server killed, a corrupt talk.speak clip, \
            an oversized frame. Reports crashes, every utterance delivered exactly once, replies \
            heard, the node's RSS (start, middle, end, growth per hour after 5 min), descriptors, \
            threads, CPU per phase and how long each fault took to recover from. With --output the \
            node's log is kept there as soak-run.log.
            """
        /// The options.
        public static let options: [OptionSpec] =
            BenchCommand.sessionOptions.filter { ["output", "cache"].contains($0.long) } + [
                .option("minutes", valueName: "n", type: .int, help: "How long to run (default 60)."),
                .repeating(
                    "fault", valueName: "name",
                    help: "Only this fault (repeatable): " + SoakFault.allCases.map(\.name).joined(separator: ", ")
                        + "."),
            ]

        let options: BenchSession.Options
        let output: String?
        let minutes: Int?
        let faults: [String]

        /// Reads the arguments.
        public init(parsed: ParsedArguments) {
            options = BenchCommand.sessionOptions(parsed)
            output = parsed.string("output")
            minutes = parsed.int("minutes")
            faults = parsed.strings("fault")
        }

        /// Checks the duration.
        public func validate() throws {
            if let minutes, minutes < 1 { throw CLIError.validationFailed("--minutes must be at least 1.") }
            for name in faults where !SoakFault.allCases.contains(where: { $0.name == name }) {
                let names = SoakFault.allCases.map(\.name).joined(separator: ", ")
                throw CLIError.validationFailed("--fault: no fault '\(name)' (one of \(names)).")
            }
        }

        /// Runs the soak.
        public func run(context: CommandContext) async throws -> Int32 {
            let session = try BenchSession(options: options, context: context)
            let chosen = SoakFault.allCases.filter { faults.isEmpty || faults.contains($0.name) }
            let log = output.map { URL(fileURLWithPath: $0).appendingPathComponent("soak-run.log") }
            let metrics = await session.soak(minutes: Double(minutes ?? 60), faults: chosen, keepLog: log)
            return try BenchCommand.finish(session, metrics: metrics, output: output, context: context)
        }
    }
}
