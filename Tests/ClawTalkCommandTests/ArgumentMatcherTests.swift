import ClawTalkCommand
import Testing

@Suite("Phase 2: matching")
struct ArgumentMatcherTests {
    typealias O = MatchedArguments.Occurrence

    static let specs: [OptionSpec] = [
        .flag("verbose", short: "v", help: "Verbose."),
        .flag("quiet", short: "q", help: "Quiet."),
        .option("output", short: "o", valueName: "file", help: "Output."),
        .repeating("tag", short: "t", help: "Tag."),
        .positional("first", help: "First."),
        .positional("rest", arity: .variadic, help: "Rest."),
    ]

    static let matches: [(arguments: [String], expected: [String: [O]])] = [
        ([], [:]),
        (["-vq"], ["verbose": [O(nil, position: 0)], "quiet": [O(nil, position: 0)]]),
        (["-vv", "--verbose"], ["verbose": [O(nil, position: 0), O(nil, position: 0), O(nil, position: 1)]]),
        (["--output=a.txt"], ["output": [O("a.txt", position: 0)]]),
        (["--output", "a.txt"], ["output": [O("a.txt", position: 1)]]),
        (["-o", "a.txt"], ["output": [O("a.txt", position: 1)]]),
        (["-vo", "a.txt"], ["verbose": [O(nil, position: 0)], "output": [O("a.txt", position: 1)]]),
        (["-o", "-5"], ["output": [O("-5", position: 1)]]),
        (["--output="], ["output": [O("", position: 0)]]),
        (["-t", "a", "--tag=b"], ["tag": [O("a", position: 1), O("b", position: 2)]]),
        (["one"], ["first": [O("one", position: 0)]]),
        (
            ["one", "-v", "two", "three"],
            [
                "first": [O("one", position: 0)], "verbose": [O(nil, position: 1)],
                "rest": [O("two", position: 2), O("three", position: 3)],
            ]
        ),
        (["--", "-v", "--output"], ["first": [O("-v", position: 1)], "rest": [O("--output", position: 2)]]),
        (["-v", "--", "--"], ["verbose": [O(nil, position: 0)], "first": [O("--", position: 2)]]),
    ]

    @Test(arguments: matches)
    func matchesTokens(arguments: [String], expected: [String: [O]]) throws {
        let matched = try ArgumentMatcher.match(ArgumentTokenizer.tokenize(arguments), specs: Self.specs)
        #expect(matched == MatchedArguments(expected))
    }

    static let failures: [(arguments: [String], error: CLIError)] = [
        (["--bogus"], .unknownOption("--bogus", position: 0)),
        (["one", "--bogus=1"], .unknownOption("--bogus", position: 1)),
        (["-vx"], .unknownOption("-x", position: 0)),
        (["--first", "x"], .unknownOption("--first", position: 0)),
        (["--output"], .missingValue(option: "--output <file>", position: 0)),
        (["-o", "-v"], .missingValue(option: "--output <file>", position: 0)),
        (["-ov", "x"], .missingValue(option: "--output <file>", position: 0)),
        (["a", "--output", "--", "x"], .missingValue(option: "--output <file>", position: 1)),
        (["--tag"], .missingValue(option: "--tag <tag>", position: 0)),
        (["--verbose=yes"], .unexpectedValue(option: "--verbose", value: "yes", position: 0)),
    ]

    @Test(arguments: failures)
    func rejectsTokens(arguments: [String], error: CLIError) {
        #expect(throws: error) {
            try ArgumentMatcher.match(ArgumentTokenizer.tokenize(arguments), specs: Self.specs)
        }
    }

    static let fixedPositionals: [OptionSpec] = [
        .positional("a", help: "A."), .positional("b", arity: .optional, help: "B."),
    ]

    static let positionalCases: [(arguments: [String], result: Result<[String: [O]], CLIError>)] = [
        ([], .success([:])),
        (["x"], .success(["a": [O("x", position: 0)]])),
        (["x", "y"], .success(["a": [O("x", position: 0)], "b": [O("y", position: 1)]])),
        (["x", "y", "z"], .failure(.unexpectedArgument("z", position: 2))),
        (["x", "--", "y", "-z"], .failure(.unexpectedArgument("-z", position: 3))),
    ]

    @Test(arguments: positionalCases)
    func fillsPositionalsInOrder(arguments: [String], result: Result<[String: [O]], CLIError>) {
        let actual = Result { () throws(CLIError) -> [String: [O]] in
            try ArgumentMatcher.match(ArgumentTokenizer.tokenize(arguments), specs: Self.fixedPositionals).occurrences
        }
        #expect(actual == result)
    }
}
