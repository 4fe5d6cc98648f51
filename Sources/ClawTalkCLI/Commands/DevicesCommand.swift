/// `clawtalk devices`: lists the sound server's capture sources and playback sinks.
public struct DevicesCommand: Command {
    /// The command name.
    public static let name = "devices"
    /// One line for OVERVIEW.
    public static let abstract = "List audio capture and playback devices."
    /// Where the names are used.
    public static let discussion = """
        Pass a listed name to 'clawtalk run --mic-device' or '--snd-device', or set it in the \
        config file.
        """
    /// Output format.
    public static let options: [OptionSpec] = [
        .flag("json", help: "Print machine-readable JSON.")
    ]

    /// `--json`.
    public var json: Bool

    /// Reads the flag.
    public init(parsed: ParsedArguments) {
        json = parsed.flag("json")
    }

    /// Not wired yet (issue 4).
    public func run(context: CommandContext) async throws -> Int32 {
        throw CLIError.notAvailableYet(command: context.commandLine, issue: 4)
    }
}
