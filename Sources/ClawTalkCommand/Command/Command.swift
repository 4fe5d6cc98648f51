/// One `clawtalk` command: its name, help, argument specs, subcommands and behaviour.
///
/// The dispatcher walks subcommand names from the root, tokenises once, matches the remaining
/// tokens against `options`, converts and validates them, builds the command with
/// `init(parsed:)`, calls `validate()` and then `run(context:)`. `-h`/`--help` is answered for
/// every command before any of that. A command with subcommands and no `defaultSubcommand`
/// is a group: given no subcommand, it prints its help and exits 0.
public protocol Command: Sendable {
    /// The kebab-case name typed on the command line (`run`, `ptt`).
    static var name: String { get }
    /// One line for OVERVIEW and for the parent's SUBCOMMANDS list.
    static var abstract: String { get }
    /// Paragraphs shown after the overview (may be empty).
    static var discussion: String { get }
    /// The flags, options and positional arguments the command accepts (help is implicit).
    static var options: [OptionSpec] { get }
    /// Subcommands, in the order help lists them.
    static var subcommands: [any Command.Type] { get }
    /// The subcommand run when none is named (the root uses `run`).
    static var defaultSubcommand: (any Command.Type)? { get }

    /// Builds the command from parsed arguments; may throw `CLIError` usage errors.
    init(parsed: ParsedArguments) throws
    /// Checks combinations of arguments; throw `CLIError.validationFailed` to report a usage error.
    func validate() throws
    /// Does the work and returns the process exit code.
    func run(context: CommandContext) async throws -> Int32
}

extension Command {
    /// No discussion by default.
    public static var discussion: String { "" }
    /// No arguments by default.
    public static var options: [OptionSpec] { [] }
    /// No subcommands by default.
    public static var subcommands: [any Command.Type] { [] }
    /// No default subcommand by default.
    public static var defaultSubcommand: (any Command.Type)? { nil }

    /// Nothing to validate by default.
    public func validate() throws {}

    /// Groups print their own help; a leaf command must implement `run(context:)`.
    public func run(context: CommandContext) async throws -> Int32 {
        context.io.writeOutput(HelpRenderer.help(for: context.commandPath))
        return ExitCode.success.rawValue
    }
}
