public import ClawTalkCommand

extension BenchCommand {
    /// `clawtalk bench cpu`.
    public struct CPU: Command {
        /// The command name.
        public static let name = "cpu"
        /// One line for OVERVIEW.
        public static let abstract = "Measure the CPU use of the audio front end."
        /// What is measured.
        public static let discussion = """
            Pushes audio through the node's front end and wake pipeline in 20 ms blocks as fast \
            as possible and divides this process's CPU seconds by the audio seconds: idle \
            (silence and low noise while listening; 1 h, 60 s with --quick) and active (speech \
            clips, each also transcribed with PocketSphinx and answered with espeak-ng). Also \
            reports peak and current RSS. Run it on an otherwise idle machine.
            """
        /// The options.
        public static let options: [OptionSpec] = BenchCommand.sessionOptions

        let options: BenchSession.Options
        let output: String?

        /// Reads the arguments.
        public init(parsed: ParsedArguments) {
            options = BenchCommand.sessionOptions(parsed)
            output = parsed.string("output")
        }

        /// Runs the CPU measurements.
        public func run(context: CommandContext) async throws -> Int32 {
            let session = try BenchSession(options: options, context: context)
            let metrics = await session.cpu()
            return try BenchCommand.finish(session, metrics: metrics, output: output, context: context)
        }
    }
}
