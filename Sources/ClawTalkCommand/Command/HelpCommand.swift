/// `clawtalk help [<subcommand> ...]`: the same text as `clawtalk <subcommand> --help`.
public struct HelpCommand: Command {
    /// The command name.
    public static let name = "help"
    /// One line for OVERVIEW.
    public static let abstract = "Show subcommand help information."
    /// The subcommand path to explain.
    public static let options: [OptionSpec] = [
        .positional("subcommand", arity: .variadic, help: "The subcommand to show help for.")
    ]

    /// Names of the subcommand path, e.g. `["ptt", "start"]`; empty for the root.
    public var subcommandPath: [String]

    /// Reads the subcommand path.
    public init(parsed: ParsedArguments) {
        subcommandPath = parsed.strings("subcommand")
    }

    /// Prints the help of the named command, or a usage error for an unknown name.
    public func run(context: CommandContext) async throws -> Int32 {
        guard let root = context.commandPath.first else { return ExitCode.failure.rawValue }
        var path: [any Command.Type] = [root]
        for name in subcommandPath {
            let current = path[path.count - 1]
            if path.count == 1, name == HelpCommand.name {
                path.append(HelpCommand.self)
            } else if let sub = current.subcommands.first(where: { $0.name == name }) {
                path.append(sub)
            } else {
                let names = current.subcommands.map { $0.name }
                throw CLIError.unknownSubcommand(name, suggestion: NameSuggester.suggestion(for: name, among: names))
            }
        }
        context.io.writeOutput(HelpRenderer.help(for: path))
        return ExitCode.success.rawValue
    }
}
