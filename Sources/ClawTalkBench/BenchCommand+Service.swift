public import ClawTalkCommand

extension BenchCommand {
    /// `clawtalk bench service`.
    public struct Service: Command {
        /// The command name.
        public static let name = "service"
        /// One line for OVERVIEW.
        public static let abstract = "Measure the real service: clawtalk run's CPU, memory and threads."
        /// What is measured.
        public static let discussion = """
            Starts this binary's 'clawtalk run' on the loopback rig (needs a sound server: \
            scripts/audio-rig start) against a test gateway on loopback, with private \
            configuration, state and ports, so it runs its own Whisper server and keyword \
            scorer from what scripts/setup installed. Reads /proc for the node and each server \
            over --silence-s of the rig's silence, then one spoken command turn ("computer, what \
            time is it?": wake, transcript, spoken reply), then over --speech-s of continuous \
            read text (espeak-ng, trigger words left out) played into the microphone: CPU in % \
            of one core (total and per process), the node's RSS (peak, and after the turn) and \
            threads, and the wakes that speech caused. Run it on an otherwise idle machine.
            """
        /// The options.
        public static let options: [OptionSpec] =
            BenchCommand.sessionOptions + [
                .option(
                    "silence-s", valueName: "s", type: .int, help: "Seconds of silence (default 600, 60 with --quick)."
                ),
                .option(
                    "speech-s", valueName: "s", type: .int,
                    help: "Seconds of continuous speech (default 600, 60 with --quick)."),
            ]

        let options: BenchSession.Options
        let output: String?
        let silence: Int?
        let speech: Int?

        /// Reads the arguments.
        public init(parsed: ParsedArguments) {
            options = BenchCommand.sessionOptions(parsed)
            output = parsed.string("output")
            silence = parsed.int("silence-s")
            speech = parsed.int("speech-s")
        }

        /// Checks the durations.
        public func validate() throws {
            for (name, value) in [("--silence-s", silence), ("--speech-s", speech)] {
                if let value, value < 10 { throw CLIError.validationFailed("\(name) must be at least 10.") }
            }
        }

        /// Runs the service measurements.
        public func run(context: CommandContext) async throws -> Int32 {
            let session = try BenchSession(options: options, context: context)
            let fallback = options.quick ? 60 : 600
            let metrics = await session.service(
                silenceSeconds: Double(silence ?? fallback), speechSeconds: Double(speech ?? fallback))
            return try BenchCommand.finish(session, metrics: metrics, output: output, context: context)
        }
    }
}
