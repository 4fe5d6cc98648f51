/// A command whose implementation has not landed yet: it parses and answers `--help`, then
/// fails with `CLIError.notAvailableYet` naming its tracking issue (exit 1).
public protocol PendingCommand: Command {
    /// The issue that tracks the implementation, if there is one.
    static var trackingIssue: Int? { get }
}

extension PendingCommand {
    /// Fails with `notAvailableYet` for the typed command line.
    public func run(context: CommandContext) async throws -> Int32 {
        throw CLIError.notAvailableYet(command: context.commandLine, issue: Self.trackingIssue)
    }
}
