public import ClawTalkCommand
import ClawTalkNode

/// The root `clawtalk` command: lists the subcommands and runs `run` when none is named.
public struct ClawTalk: Command {
    /// The program name.
    public static let name = "clawtalk"
    /// One line for OVERVIEW.
    public static let abstract = "The Linux voice node for OpenClaw: wake word, push-to-talk and Talk mode."
    /// Settings precedence and exit codes.
    public static let discussion = """
        With no subcommand, clawtalk runs the voice node service ('clawtalk run'). Settings \
        come from command-line options, then CLAWTALK_* environment variables, then the \
        config file, then built-in defaults.

        Exit codes:
          0   success
          1   runtime failure
          64  usage error (the command line is malformed)
          69  gateway or audio device unavailable

        'clawtalk --version' prints the version, as 'clawtalk version' does.
        """
    /// Every subcommand, in help order (`help` is implicit, as in swift-argument-parser).
    public static let subcommands: [any Command.Type] = [
        RunCommand.self, PairCommand.self, DiscoverCommand.self, StatusCommand.self, GatewaysCommand.self,
        DevicesCommand.self, RecordCommand.self, SayCommand.self, TranscribeCommand.self, PTTCommand.self,
        TalkCommand.self, BenchLauncher.self, ServiceCommand.self, SetupCommand.self, DoctorCommand.self,
        VersionCommand.self,
    ]
    /// `clawtalk` alone (or with only options) is `clawtalk run`.
    public static let defaultSubcommand: (any Command.Type)? = RunCommand.self

    /// The root takes no arguments of its own.
    public init(parsed: ParsedArguments) {}

    /// Parses `arguments` (program name first), runs the command and returns its exit code.
    public static func main(
        arguments: [String], io: CommandIO = .standard, environment: [String: String] = [:]
    ) async -> Int32 {
        if arguments.dropFirst().elementsEqual(["--version"]) {
            io.writeOutput("clawtalk \(ClawTalkVersion.current)\n")
            return ExitCode.success.rawValue
        }
        if let bench = BenchLauncher.benchArguments(arguments) {
            return BenchLauncher.exec(arguments: bench, io: io)
        }
        return await CommandDispatcher.execute(
            root: ClawTalk.self, arguments: arguments, io: io, environment: environment)
    }
}
