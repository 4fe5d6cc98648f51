import ClawTalkCommand

/// A small command tree for dispatcher tests, independent of clawtalk's own commands.
struct FixtureTool: Command {
    static let name = "tool"
    static let abstract = "A fixture tool."
    static let subcommands: [any Command.Type] = [FixtureEcho.self, FixtureGroup.self, FixtureFail.self]
    static let defaultSubcommand: (any Command.Type)? = FixtureEcho.self
    init(parsed: ParsedArguments) {}
}

/// Writes what it parsed, so tests can see which command ran with which values.
struct FixtureEcho: Command {
    static let name = "echo"
    static let abstract = "Echo the arguments."
    static let discussion = "Used by the dispatcher tests."
    static let options: [OptionSpec] = [
        .flag("verbose", short: "v", help: "Say more."),
        .option("count", valueName: "n", type: .int, help: "How many times.", default: "1"),
        .positional("word", arity: .optional, help: "A word to echo."),
    ]

    var verbose: Bool
    var count: Int?
    var word: String?

    init(parsed: ParsedArguments) {
        verbose = parsed.flag("verbose")
        count = parsed.int("count")
        word = parsed.string("word")
    }

    func validate() throws {
        if let count, count < 0 { throw CLIError.validationFailed("--count must not be negative.") }
    }

    func run(context: CommandContext) async throws -> Int32 {
        context.io.writeOutput(
            "\(context.commandLine): verbose=\(verbose) count=\(count.map(String.init) ?? "nil") word=\(word ?? "nil")\n"
        )
        return 0
    }
}

/// A group without a default subcommand.
struct FixtureGroup: Command {
    static let name = "group"
    static let abstract = "A group of commands."
    static let subcommands: [any Command.Type] = [FixtureLeaf.self]
    init(parsed: ParsedArguments) {}
}

/// The group's only leaf.
struct FixtureLeaf: Command {
    static let name = "leaf"
    static let abstract = "A leaf."
    init(parsed: ParsedArguments) {}
    func run(context: CommandContext) async throws -> Int32 {
        context.io.writeOutput("leaf ran\n")
        return 0
    }
}

/// Throws the error its argument names.
struct FixtureFail: Command {
    struct Boom: Error, CustomStringConvertible {
        var description: String { "boom happened" }
    }

    static let name = "fail"
    static let abstract = "Fail the way the test asks."
    static let options: [OptionSpec] = [
        .positional("how", help: "How to fail.", allowedValues: ["boom", "unavailable", "pending", "code"])
    ]

    var how: String

    init(parsed: ParsedArguments) {
        how = parsed.string("how") ?? ""
    }

    func run(context: CommandContext) async throws -> Int32 {
        switch how {
        case "boom": throw Boom()
        case "unavailable": throw CLIError.unavailable("No gateway at ws://127.0.0.1:1.")
        case "pending": throw CLIError.notAvailableYet(command: context.commandLine, issue: 9)
        default: return 3
        }
    }
}
