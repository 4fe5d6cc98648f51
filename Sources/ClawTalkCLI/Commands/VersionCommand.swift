public import ClawTalkCommand
import ClawTalkNode

/// `clawtalk version`: prints `clawtalk <version>`.
public struct VersionCommand: Command {
    /// The command name.
    public static let name = "version"
    /// One line for OVERVIEW.
    public static let abstract = "Print the clawtalk version."

    /// Takes no arguments.
    public init(parsed: ParsedArguments) {}

    /// Writes `clawtalk 0.1.0` to standard output.
    public func run(context: CommandContext) async throws -> Int32 {
        context.io.writeOutput("clawtalk \(ClawTalkVersion.current)\n")
        return ExitCode.success.rawValue
    }
}
