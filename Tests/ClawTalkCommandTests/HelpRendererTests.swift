import ClawTalkCommand
import Testing

@Suite("Help layout")
struct HelpRendererTests {
    static let rows: [(label: String, text: String, expected: String)] = [
        ("--json", "Print JSON.", "  --json                  Print JSON.\n"),
        ("", "x", "                          x\n"),
        ("<x>", "", "  <x>\n"),
        // 23 characters: the padded label (25) still ends before column 26.
        (String(repeating: "a", count: 23), "Fits.", "  " + String(repeating: "a", count: 23) + " Fits.\n"),
        // 24 characters reach column 26: the text moves to the next line.
        (
            String(repeating: "b", count: 24), "Next line.",
            "  " + String(repeating: "b", count: 24) + "\n" + String(repeating: " ", count: 26) + "Next line.\n"
        ),
        (
            "--long",
            "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.",
            "  --long                  Lorem ipsum dolor sit amet, consectetur adipiscing\n"
                + "                          elit, sed do eiusmod tempor.\n"
        ),
    ]

    @Test(arguments: rows)
    func rendersRows(label: String, text: String, expected: String) {
        #expect(HelpRenderer.row(label: label, text: text) == expected)
    }

    static let labels: [(OptionSpec, help: String, usage: String, error: String)] = [
        (.flag("local", help: ""), "--local", "[--local]", "--local"),
        (.flag("verbose", short: "v", help: ""), "-v, --verbose", "[--verbose]", "--verbose"),
        (.option("file", valueName: "path", help: ""), "--file <path>", "[--file <path>]", "--file <path>"),
        (.option("out", short: "o", help: ""), "-o, --out <out>", "[--out <out>]", "--out <out>"),
        (.option("name", help: "", required: true), "--name <name>", "--name <name>", "--name <name>"),
        (.repeating("tag", help: ""), "--tag <tag>", "[--tag <tag> ...]", "--tag <tag>"),
        (.positional("code", help: ""), "<code>", "<code>", "<code>"),
        (.positional("text", arity: .optional, help: ""), "<text>", "[<text>]", "<text>"),
        (.positional("words", arity: .variadic, help: ""), "<words> ...", "[<words> ...]", "<words>"),
        (OptionSpec(long: nil, short: "x", kind: .flag, help: ""), "-x", "[-x]", "-x"),
    ]

    @Test(arguments: labels)
    func labelsSpecs(spec: OptionSpec, help: String, usage: String, error: String) {
        #expect(spec.helpLabel == help)
        #expect(spec.usageFragment == usage)
        #expect(spec.errorLabel == error)
    }

    static let descriptions: [(OptionSpec, String)] = [
        (.flag("json", help: "Print JSON."), "Print JSON."),
        (.option("level", help: "Level.", default: "info"), "Level. (default: info)"),
        (.option("format", help: "Format.", allowedValues: ["text", "json"]), "Format. (values: text, json)"),
        (
            .option("format", help: "Format.", default: "text", allowedValues: ["text", "json"]),
            "Format. (values: text, json; default: text)"
        ),
        (.option("x", help: "", default: "1"), "(default: 1)"),
        (.option("x", help: "X.", default: ""), "X."),
    ]

    @Test(arguments: descriptions)
    func appendsValuesAndDefaults(spec: OptionSpec, expected: String) {
        #expect(spec.helpDescription == expected)
    }

    @Test func rendersALeafCommand() {
        let expected = """
            OVERVIEW: Echo the arguments.

            Used by the dispatcher tests.

            USAGE: tool echo [--verbose] [--count <n>] [<word>]

            ARGUMENTS:
              <word>                  A word to echo.

            OPTIONS:
              -v, --verbose           Say more.
              --count <n>             How many times. (default: 1)
              -h, --help              Show help information.


            """
        #expect(HelpRenderer.help(for: [FixtureTool.self, FixtureEcho.self]) == expected)
    }

    @Test func rendersAGroupWithItsDefaultAndTheHelpHint() {
        let expected = """
            OVERVIEW: A fixture tool.

            USAGE: tool <subcommand>

            OPTIONS:
              -h, --help              Show help information.

            SUBCOMMANDS:
              echo (default)          Echo the arguments.
              group                   A group of commands.
              fail                    Fail the way the test asks.

              See 'tool help <subcommand>' for detailed help.

            """
        #expect(HelpRenderer.help(for: [FixtureTool.self]) == expected)
        #expect(HelpRenderer.usage(for: [FixtureTool.self, FixtureGroup.self]) == "tool group <subcommand>")
        #expect(
            HelpRenderer.help(for: [FixtureTool.self, FixtureGroup.self])
                .hasSuffix("\n  See 'tool help group <subcommand>' for detailed help.\n"))
    }

    @Test func collapsesManyOptionsInTheUsageLine() {
        #expect(HelpRenderer.usage(for: [ManyOptions.self]) == "many [<options>] --must <must> <file>")
        #expect(HelpRenderer.help(for: [ManyOptions.self]).hasPrefix("USAGE: many [<options>]"))
    }
}

/// More than twelve options, so the usage line collapses them.
private struct ManyOptions: Command {
    static let name = "many"
    static let abstract = ""
    static let options: [OptionSpec] =
        (1...13).map { OptionSpec.flag("f\($0)", help: "") } + [
            .option("must", help: "", required: true), .positional("file", help: ""),
        ]
    init(parsed: ParsedArguments) {}
}
