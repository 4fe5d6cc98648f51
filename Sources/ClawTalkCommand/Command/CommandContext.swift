/// What a running command gets from the dispatcher.
public struct CommandContext: Sendable {
    /// The command types from the root to the running command (`[ClawTalk, PTTCommand, PTTCommand.Start]`).
    public var commandPath: [any Command.Type]
    /// Output and error writers.
    public var io: CommandIO
    /// The process environment (for `CLAWTALK_…` settings).
    public var environment: [String: String]

    /// A context for `commandPath` writing to `io`.
    public init(commandPath: [any Command.Type], io: CommandIO, environment: [String: String]) {
        self.commandPath = commandPath
        self.io = io
        self.environment = environment
    }

    /// The typed invocation, e.g. `clawtalk ptt start`.
    public var commandLine: String {
        commandPath.map { $0.name }.joined(separator: " ")
    }
}
