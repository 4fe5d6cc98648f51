import ClawTalkCommand
import Testing

@Suite("Dispatch")
struct CommandDispatcherTests {
    static let runs: [(arguments: [String], output: String)] = [
        ([], "tool echo: verbose=false count=nil word=nil\n"),
        (["--verbose"], "tool echo: verbose=true count=nil word=nil\n"),
        (["-v", "--count", "3", "hi"], "tool echo: verbose=true count=3 word=hi\n"),
        (["echo", "-v", "--count=2", "hi"], "tool echo: verbose=true count=2 word=hi\n"),
        (["--", "group"], "tool echo: verbose=false count=nil word=group\n"),
        (["echo", "--", "--help"], "tool echo: verbose=false count=nil word=--help\n"),
        (["echo", "--count", "-4", "--", "x"], ""),
        (["group", "leaf"], "leaf ran\n"),
    ]

    @Test(arguments: runs)
    func routesToTheRightCommand(arguments: [String], output: String) async {
        let run = await execute(FixtureTool.self, arguments)
        if output.isEmpty {
            // --count -4 is parsed (negative numbers are values) and then rejected by validate().
            #expect(run.status == 64)
            #expect(run.error.hasPrefix("Error: --count must not be negative.\nUsage: tool echo "))
        } else {
            #expect(run.status == 0)
            #expect(run.output == output)
            #expect(run.error.isEmpty)
        }
    }

    static let helpRequests: [(arguments: [String], path: [any Command.Type])] = [
        (["--help"], [FixtureTool.self]),
        (["-h"], [FixtureTool.self]),
        (["help"], [FixtureTool.self]),
        (["--verbose", "--help"], [FixtureTool.self, FixtureEcho.self]),
        (["echo", "-h"], [FixtureTool.self, FixtureEcho.self]),
        (["echo", "--bogus", "--help"], [FixtureTool.self, FixtureEcho.self]),
        (["-vh"], [FixtureTool.self, FixtureEcho.self]),
        (["help", "echo"], [FixtureTool.self, FixtureEcho.self]),
        (["group"], [FixtureTool.self, FixtureGroup.self]),
        (["group", "--help"], [FixtureTool.self, FixtureGroup.self]),
        (["help", "group", "leaf"], [FixtureTool.self, FixtureGroup.self, FixtureLeaf.self]),
        (["group", "leaf", "--help"], [FixtureTool.self, FixtureGroup.self, FixtureLeaf.self]),
        (["help", "help"], [FixtureTool.self, HelpCommand.self]),
    ]

    @Test(arguments: helpRequests)
    func printsHelpForTheResolvedCommand(arguments: [String], path: [any Command.Type]) async {
        let run = await execute(FixtureTool.self, arguments)
        #expect(run.status == 0)
        #expect(run.output == HelpRenderer.help(for: path))
        #expect(run.error.isEmpty)
    }

    static let usageErrors: [(arguments: [String], stderr: String)] = [
        (
            ["grop"],
            "Error: Unknown subcommand 'grop'. Did you mean 'group'?\nUsage: tool <subcommand>\n"
                + "  See 'tool --help' for more information.\n"
        ),
        (
            ["group", "lead"],
            "Error: Unknown subcommand 'lead'. Did you mean 'leaf'?\nUsage: tool group <subcommand>\n"
                + "  See 'tool group --help' for more information.\n"
        ),
        (
            ["echo", "--count", "x"],
            "Error: The value 'x' is invalid for '--count <n>': expected an integer\n"
                + "Usage: tool echo [--verbose] [--count <n>] [<word>]\n"
                + "  See 'tool echo --help' for more information.\n"
        ),
        (
            ["--bogus"],
            "Error: Unknown option '--bogus'\nUsage: tool echo [--verbose] [--count <n>] [<word>]\n"
                + "  See 'tool echo --help' for more information.\n"
        ),
        (
            ["group", "--bogus"],
            "Error: Unknown option '--bogus'\nUsage: tool group <subcommand>\n"
                + "  See 'tool group --help' for more information.\n"
        ),
        (
            ["echo", "a", "b"],
            "Error: Unexpected argument 'b'\nUsage: tool echo [--verbose] [--count <n>] [<word>]\n"
                + "  See 'tool echo --help' for more information.\n"
        ),
        (
            ["fail"],
            "Error: Missing expected argument '<how>'\nUsage: tool fail <how>\n"
                + "  See 'tool fail --help' for more information.\n"
        ),
        (
            ["help", "nope"],
            "Error: Unknown subcommand 'nope'\nUsage: tool help [<subcommand> ...]\n"
                + "  See 'tool help --help' for more information.\n"
        ),
    ]

    @Test(arguments: usageErrors)
    func reportsUsageErrorsWithExit64(arguments: [String], stderr: String) async {
        let run = await execute(FixtureTool.self, arguments)
        #expect(run.status == 64)
        #expect(run.output.isEmpty)
        #expect(run.error == stderr)
    }

    static let runtimeErrors: [(how: String, status: Int32, stderr: String)] = [
        ("boom", 1, "Error: boom happened\n"),
        ("unavailable", 69, "Error: No gateway at ws://127.0.0.1:1.\n"),
        ("pending", 1, "Error: 'tool fail' is not available yet (tracked in issue #9).\n"),
        ("code", 3, ""),
    ]

    @Test(arguments: runtimeErrors)
    func reportsRuntimeErrorsWithoutUsage(how: String, status: Int32, stderr: String) async {
        let run = await execute(FixtureTool.self, ["fail", how])
        #expect(run.status == status)
        #expect(run.output.isEmpty)
        #expect(run.error == stderr)
    }
}
