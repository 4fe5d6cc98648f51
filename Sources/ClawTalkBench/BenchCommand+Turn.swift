public import ClawTalkCommand
import Foundation

extension BenchCommand {
    /// `clawtalk bench turn`.
    public struct Turn: Command {
        /// The command name.
        public static let name = "turn"
        /// One line for OVERVIEW.
        public static let abstract =
            "Measure whole voice turns of the real service: speech end → transcript at the gateway."
        /// What is measured.
        public static let discussion = """
            Starts this binary's 'clawtalk run' on a private sound server and loopback rig \
            against a test gateway over TLS on loopback that answers every chat.send with a \
            short reply, and plays espeak-ng utterances (1.5–6 s, about 40 everyday requests in \
            four voices, cached beside the wake corpus) into the microphone. Times the end of the \
            user's speech (the last sample above -40 dBFS) to the moment the gateway receives \
            the transcript (chat.send, or the voice.transcript node event): turn.talk (Talk mode \
            on by the gateway's talk.mode event), turn.wake ("computer, ..."), turn.ptt_once \
            (talk.ptt.once invoked, then the utterance) and turn.ptt_stop (talk.ptt.start, the \
            utterance, talk.ptt.stop at its end; from the stop invoke), each with the WER of \
            what arrived; then --lost-runs of the lost-turn sequence (a silent 12 s \
            talk.ptt.once, three questions, the second across a 3 s gateway outage): \
            turn.lost (questions lost, duplicated, delivered once) and turn.silent_once. The \
            machine's load is given at the start and end of each metric. With --output, the \
            node's log is kept there as turn-run.log.
            """
        /// The options.
        public static let options: [OptionSpec] =
            BenchCommand.sessionOptions + [BenchCommand.onlyOption] + [
                .option(
                    "lost-runs", valueName: "n", type: .int,
                    help: "Runs of the lost-turn sequence (default 10, 2 with --quick; 0 leaves it out).")
            ]

        let options: BenchSession.Options
        let output: String?
        let lostRuns: Int?

        /// Reads the arguments.
        public init(parsed: ParsedArguments) {
            options = BenchCommand.sessionOptions(parsed)
            output = parsed.string("output")
            lostRuns = parsed.int("lost-runs")
        }

        /// Checks the run count.
        public func validate() throws {
            if let lostRuns, lostRuns < 0 { throw CLIError.validationFailed("--lost-runs must not be negative.") }
        }

        /// Runs the turn measurements.
        public func run(context: CommandContext) async throws -> Int32 {
            let session = try BenchSession(options: options, context: context)
            if let output { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) }
            let log = output.map { URL(fileURLWithPath: $0).appendingPathComponent("turn-run.log") }
            let metrics = await session.turn(lostRuns: lostRuns, keepLog: log)
            return try BenchCommand.finish(session, metrics: metrics, output: output, context: context)
        }
    }
}
