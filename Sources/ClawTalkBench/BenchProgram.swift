public import ClawTalkCommand

/// The `clawtalk-bench` executable's root: `clawtalk bench` with the `clawtalk` program name, so
/// help and errors read as they do when `clawtalk bench …` hands over to it.
public struct BenchProgram: Command {
    /// The program name, as the user typed it.
    public static let name = "clawtalk"
    /// One line for OVERVIEW.
    public static let abstract = BenchCommand.abstract
    /// Only the bench.
    public static let subcommands: [any Command.Type] = [BenchCommand.self]

    /// The root takes no arguments of its own.
    public init(parsed: ParsedArguments) {}

    /// Runs `clawtalk bench` with `arguments` (program name first, then the bench's own, as
    /// ``BenchLauncher`` passes them) and returns its exit code.
    public static func main(
        arguments: [String], io: CommandIO = .standard, environment: [String: String] = [:]
    ) async -> Int32 {
        await CommandDispatcher.execute(
            root: BenchProgram.self, arguments: [name, BenchCommand.name] + arguments.dropFirst(), io: io,
            environment: environment)
    }
}
