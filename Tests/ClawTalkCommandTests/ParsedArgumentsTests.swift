import ClawTalkCommand
import Testing

@Suite("Typed access")
struct ParsedArgumentsTests {
    enum Format: String {
        case text, json
    }

    static let specs: [OptionSpec] = [
        .flag("verbose", short: "v", help: "Verbose."),
        .flag("dry-run", help: "Dry run."),
        .option("count", short: "c", type: .int, help: "Count."),
        .option("gain", type: .double, help: "Gain."),
        .option("ratio", type: .double, help: "Ratio."),
        .option("format", help: "Format.", allowedValues: ["text", "json"]),
        .repeating("tag", help: "Tag."),
        .positional("words", arity: .variadic, help: "Words."),
    ]

    @Test func readsTypedValues() throws {
        let arguments = [
            "-vv", "--count", "2", "-c", "5", "--gain=-3.5", "--ratio", "2", "--format", "json", "--tag", "a", "hello",
            "--tag=b", "world",
        ]
        let parsed = try ParsedArguments(tokens: ArgumentTokenizer.tokenize(arguments), specs: Self.specs)
        #expect(parsed.flag("verbose"))
        #expect(parsed.count("verbose") == 2)
        #expect(!parsed.flag("dry-run"))
        #expect(parsed.count("dry-run") == 0)
        #expect(parsed.int("count") == 5)
        #expect(parsed.ints("count") == [2, 5])
        #expect(parsed.double("gain") == -3.5)
        #expect(parsed.double("ratio") == 2)
        #expect(parsed.value("format", as: Format.self) == .json)
        #expect(parsed.strings("tag") == ["a", "b"])
        #expect(parsed.strings("words") == ["hello", "world"])
        #expect(parsed.string("words") == "world")
        #expect(parsed.contains("tag"))
    }

    @Test func absentValuesAreNilNotDefaults() throws {
        let parsed = try ParsedArguments(tokens: [], specs: Self.specs)
        #expect(parsed.int("count") == nil)
        #expect(parsed.double("gain") == nil)
        #expect(parsed.string("format") == nil)
        #expect(parsed.value("format", as: Format.self) == nil)
        #expect(parsed.strings("tag").isEmpty)
        #expect(!parsed.contains("words"))
    }

    @Test func wrongTypedAccessorFindsNothing() {
        let parsed = ParsedArguments(["count": [.int(3)], "name": [.string("x")]])
        #expect(parsed.string("count") == nil)
        #expect(parsed.int("name") == nil)
        #expect(parsed.double("name") == nil)
        #expect(parsed.double("count") == 3)
    }
}
