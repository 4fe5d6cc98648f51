/// `clawtalk status`: the running node's connection, pairing and audio state.
public struct StatusCommand: Command {
    /// The command name.
    public static let name = "status"
    /// One line for OVERVIEW.
    public static let abstract = "Show the connection, pairing and audio state of the running node."
    /// Output format and follow mode.
    public static let options: [OptionSpec] = [
        .flag("json", help: "Print machine-readable JSON (includes per-turn latency timelines)."),
        .flag("watch", help: "Keep printing updates until interrupted."),
    ]

    /// `--json`.
    public var json: Bool
    /// `--watch`.
    public var watch: Bool

    /// Reads the flags.
    public init(parsed: ParsedArguments) {
        json = parsed.flag("json")
        watch = parsed.flag("watch")
    }

    /// Not implemented yet (issue 3).
    public func run(context: CommandContext) async throws -> Int32 {
        throw CLIError.notAvailableYet(command: context.commandLine, issue: 3)
    }
}
