public import ClawTalkCommand
import Foundation

/// `clawtalk bench`: hands the command line to the `clawtalk-bench` executable beside this one.
///
/// The bench links the test gateway (it answers `talk.speak` with fixed delays, benchmarks.md
/// §1.3); the node never does, so the benchmarks are their own executable and `clawtalk bench …`
/// (and `clawtalk help bench …`) replaces this process with it, arguments unchanged.
public struct BenchLauncher: Command {
    /// The command name.
    public static let name = "bench"
    /// One line for OVERVIEW (the same as `clawtalk-bench`'s).
    public static let abstract = "Measure wake-word accuracy, audio latency and CPU use."
    /// Where the bench is.
    public static let discussion = """
        Runs the clawtalk-bench executable installed beside clawtalk; see 'clawtalk bench --help'.
        """
    /// The name of the bench executable.
    public static let executableName = "clawtalk-bench"

    /// Takes every argument as the bench's.
    public init(parsed: ParsedArguments) {}

    /// Only reached when the dispatcher resolved `bench` itself: run the bench with no arguments.
    public func run(context: CommandContext) async throws -> Int32 {
        Self.exec(arguments: [], io: context.io)
    }

    /// The bench's arguments when `arguments` (program name first) asks for it: everything after
    /// `bench`, or `help bench X…` as `X… --help`; nil for any other command.
    public static func benchArguments(_ arguments: [String]) -> [String]? {
        let words = Array(arguments.dropFirst())
        if words.first == name { return Array(words.dropFirst()) }
        if words.count >= 2, words[0] == HelpCommand.name, words[1] == name {
            return Array(words.dropFirst(2)) + ["--help"]
        }
        return nil
    }

    /// Replaces this process with `clawtalk-bench arguments…`; returns only when that is not
    /// possible, after saying why (exit 69).
    public static func exec(arguments: [String], io: CommandIO) -> Int32 {
        let path: String
        do {
            path = try ClawTalkExecutable.sibling(executableName)
        } catch {
            io.writeError("Error: \(error)\n")
            return ExitCode.unavailable.rawValue
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            io.writeError(
                "Error: clawtalk bench needs \(path), which is missing; build it with "
                    + "'swift build -c release' (scripts/setup does)\n")
            return ExitCode.unavailable.rawValue
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        execv(path, argv)
        io.writeError("Error: cannot run \(path): \(String(cString: strerror(errno)))\n")
        return ExitCode.unavailable.rawValue
    }
}
