import ClawTalkCommand
import Testing

@Suite("Phase 4: validation")
struct ArgumentValidatorTests {
    static let specs: [OptionSpec] = [
        .option("name", help: "Name.", required: true),
        .option("note", help: "Note."),
        .flag("force", help: "Force."),
        .positional("code", help: "Code."),
        .positional("extra", arity: .optional, help: "Extra."),
        .positional("rest", arity: .variadic, help: "Rest."),
    ]

    static let cases: [(values: [String: [ArgumentValue]], error: CLIError?)] = [
        (["name": [.string("n")], "code": [.string("c")]], nil),
        (["name": [.string("n")], "code": [.string("c")], "extra": [.string("e")], "force": [.flag]], nil),
        (["code": [.string("c")]], .missingArgument("--name <name>")),
        (["name": [.string("n")]], .missingArgument("<code>")),
        (["name": [], "code": [.string("c")]], .missingArgument("--name <name>")),
        ([:], .missingArgument("--name <name>")),
    ]

    @Test(arguments: cases)
    func requiresRequiredArguments(values: [String: [ArgumentValue]], error: CLIError?) {
        let parsed = ParsedArguments(values)
        if let error {
            #expect(throws: error) { try ArgumentValidator.validate(parsed, specs: Self.specs) }
        } else {
            #expect(throws: Never.self) { try ArgumentValidator.validate(parsed, specs: Self.specs) }
        }
    }

    static let endToEnd: [(arguments: [String], error: CLIError?)] = [
        (["--name", "n", "c"], nil),
        (["c", "--name=n", "e", "r1", "r2"], nil),
        (["c"], .missingArgument("--name <name>")),
        (["--name", "n"], .missingArgument("<code>")),
        (["--name"], .missingValue(option: "--name <name>", position: 0)),
    ]

    @Test(arguments: endToEnd)
    func runsPhasesTwoToFourInOrder(arguments: [String], error: CLIError?) {
        let tokens = ArgumentTokenizer.tokenize(arguments)
        if let error {
            #expect(throws: error) { try ParsedArguments(tokens: tokens, specs: Self.specs) }
        } else {
            #expect(throws: Never.self) { try ParsedArguments(tokens: tokens, specs: Self.specs) }
        }
    }
}
