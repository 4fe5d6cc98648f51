/// `clawtalk say`: speaks text through the node's speaker.
public struct SayCommand: Command {
    /// The command name.
    public static let name = "say"
    /// One line for OVERVIEW.
    public static let abstract = "Speak text through the node's speaker."
    /// Which synthesizer is used.
    public static let discussion = """
        The gateway synthesizes the speech with its configured voice; --local uses espeak-ng on \
        this machine instead, which also works without a gateway.
        """
    /// Text source and voice.
    public static let options: [OptionSpec] = [
        .flag("local", help: "Synthesize with espeak-ng on this machine instead of the gateway."),
        .option("file", valueName: "path", help: "Read the text to speak from a file."),
        .flag("last", help: "Speak the last reply again."),
        .option(
            "voice", valueName: "name", help: "Voice to use (a gateway voice, or an espeak-ng voice with --local)."),
        .positional("text", arity: .optional, help: "The text to speak."),
    ]

    /// The text given on the command line.
    public var text: String?
    /// `--local`.
    public var local: Bool
    /// `--file`.
    public var file: String?
    /// `--last`.
    public var last: Bool
    /// `--voice`.
    public var voice: String?

    /// Reads the arguments.
    public init(parsed: ParsedArguments) {
        text = parsed.string("text")
        local = parsed.flag("local")
        file = parsed.string("file")
        last = parsed.flag("last")
        voice = parsed.string("voice")
    }

    /// At most one source of text.
    public func validate() throws {
        let sources = [text != nil, file != nil, last].filter { $0 }.count
        if sources > 1 {
            throw CLIError.validationFailed("Give only one of <text>, --file and --last.")
        }
    }

    /// Not implemented yet: espeak-ng output is issue 4, gateway speech issue 6.
    public func run(context: CommandContext) async throws -> Int32 {
        throw CLIError.notAvailableYet(command: context.commandLine, issue: local ? 4 : 6)
    }
}
