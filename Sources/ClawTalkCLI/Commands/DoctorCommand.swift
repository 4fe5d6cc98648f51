/// `clawtalk doctor`: checks the setup and prints the effective settings with their sources.
public struct DoctorCommand: Command {
    /// The command name.
    public static let name = "doctor"
    /// One line for OVERVIEW.
    public static let abstract = "Check the setup and print the effective settings and where each came from."
    /// What is checked.
    public static let discussion = """
        Checks the sound server, the audio devices, the speech models, the wake-word runtime \
        and the gateway connection. Tokens and passwords are redacted.
        """
    /// Config file and output format.
    public static let options: [OptionSpec] = [
        .option(
            "config", valueName: "path", help: "Configuration file to read.",
            default: "~/.config/clawtalk/clawtalk.json5"),
        .flag("json", help: "Print machine-readable JSON."),
    ]

    /// `--config`.
    public var configPath: String?
    /// `--json`.
    public var json: Bool

    /// Reads the arguments.
    public init(parsed: ParsedArguments) {
        configPath = parsed.string("config")
        json = parsed.flag("json")
    }

    /// Not wired yet.
    public func run(context: CommandContext) async throws -> Int32 {
        throw CLIError.notAvailableYet(command: context.commandLine, issue: nil)
    }
}
