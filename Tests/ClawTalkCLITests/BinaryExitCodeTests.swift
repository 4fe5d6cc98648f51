import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

@Suite("Binary exit codes")
struct BinaryExitCodeTests {
    @Test func unknownOptionIsAUsageError() async throws {
        let result = try await ClawTalkBinary.run(["say", "--bogus"])
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        #expect(
            result.error == """
                Error: Unknown option '--bogus'
                Usage: clawtalk say [--local] [--file <path>] [--last] [--voice <name>] [--snd-device <name>] [<text>]
                  See 'clawtalk say --help' for more information.

                """)
    }

    @Test func unknownSubcommandSuggestsTheNearestName() async throws {
        let result = try await ClawTalkBinary.run(["devics"])
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        #expect(
            result.error == """
                Error: Unknown subcommand 'devics'. Did you mean 'devices'?
                Usage: clawtalk <subcommand>
                  See 'clawtalk --help' for more information.

                """)
    }

    static let usageErrors: [(arguments: [String], firstLine: String)] = [
        (
            ["run", "--log-level", "loud"],
            "Error: The value 'loud' is invalid for '--log-level <level>': expected one of trace, debug, info, notice, warning, error"
        ),
        (
            ["--log-format=xml"],
            "Error: The value 'xml' is invalid for '--log-format <format>': expected one of text, json"
        ),
        (["run", "--config"], "Error: Missing value for '--config <path>'"),
        (["run", "extra"], "Error: Unexpected argument 'extra'"),
        (["say", "one", "two"], "Error: Unexpected argument 'two'"),
        (["say", "hi", "--last"], "Error: Give only one of <text>, --file and --last."),
        (["pair", "--token", "a", "--password", "b"], "Error: Use either --token or --password, not both."),
        (
            ["pair"],
            "Error: Give a setup code (run 'openclaw qr' on the gateway host) or --gateway-url."
        ),
        (
            ["pair", "CODE", "--gateway-url", "ws://127.0.0.1:1"],
            "Error: Give either a setup code or --gateway-url, not both."
        ),
        (
            ["pair", "--gateway-url", "ws://127.0.0.1:1", "--timeout", "0"],
            "Error: --timeout must be at least 1 second."
        ),
        (["gateways", "use"], "Error: Missing expected argument '<gateway>'"),
        (["status", "--json=yes"], "Error: Unexpected value 'yes' for '--json'"),
        (["ptt", "strat"], "Error: Unknown subcommand 'strat'. Did you mean 'start'?"),
        (["ptt", "start", "now"], "Error: Unexpected argument 'now'"),
        (["help", "nope"], "Error: Unknown subcommand 'nope'"),
    ]

    @Test(arguments: usageErrors)
    func usageErrorsExit64WithUsage(arguments: [String], firstLine: String) async throws {
        let result = try await ClawTalkBinary.run(arguments)
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        let lines = result.error.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first == firstLine)
        #expect(lines.dropFirst().first?.hasPrefix("Usage: clawtalk") == true)
        #expect(lines.last?.hasPrefix("  See 'clawtalk") == true)
        #expect(lines.last?.hasSuffix(" --help' for more information.") == true)
    }

    static let invalidInput: [(arguments: [String], message: String)] = [
        (
            ["pair", "CODE", "--tls-fingerprint", "ab"],
            "--tls-fingerprint is not a SHA-256 fingerprint (64 hex digits; a sha256: prefix and colons are fine)"
        ),
        (["pair", "oc-pair://%%%"], "setup code cannot be decoded: not base64url; nothing was sent"),
        (
            ["pair", "--gateway-url", "ws://gateway.example.com:18789"],
            "ws:// to gateway.example.com is not on the local network; use a wss:// URL "
                + "(or set gateway.allowInsecureRemote to accept plaintext)"
        ),
        (
            ["pair", "--gateway-url", "ws://127.0.0.1:1", "--tls-fingerprint", String(repeating: "a", count: 64)],
            "--tls-fingerprint needs a wss:// gateway URL; ws://127.0.0.1:1/ is plaintext"
        ),
        (
            ["pair", "--gateway-url", "https://gw.example.com/j/abc"],
            "--gateway-url: this is a join URL, not a gateway URL: pass it to `clawtalk pair <join URL>`"
        ),
    ]

    /// Input checked before anything is sent or stored: exit 64, one line, no usage.
    @Test(arguments: invalidInput)
    func invalidPairingInputExits64WithoutUsage(arguments: [String], message: String) async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let result = try await ClawTalkBinary.run(arguments, environment: home.environment)
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        #expect(result.error == "Error: \(message)\n")
        #expect(!FileManager.default.fileExists(atPath: home.state + "/clawtalk"), "no state was created")
    }

    @Test func versionPrintsTheVersionConstant() async throws {
        let result = try await ClawTalkBinary.run(["version"])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("clawtalk "))
        #expect(result.output.hasSuffix("\n"))
        #expect(result.output.split(separator: " ").count == 2)
    }
}

@Suite("Binary service lifecycle", .timeLimit(.minutes(1)))
struct BinaryServiceTests {
    static let cases: [(arguments: [String], signal: Int32, started: String, stopping: String)] = [
        (["run"], SIGTERM, " info clawtalk.service service.started ", " service.stopping signal=TERM"),
        ([], SIGTERM, " info clawtalk.service service.started ", " service.stopping signal=TERM"),
        (["--log-level", "debug"], SIGINT, " info clawtalk.service service.started ", " service.stopping signal=INT"),
        (
            ["run", "--log-format", "json"], SIGTERM, "\"event\":\"service.started\"",
            "\"event\":\"service.stopping\",\"signal\":\"TERM\""
        ),
    ]

    @Test(arguments: cases)
    func stopsCleanlyOnSignal(arguments: [String], signal: Int32, started: String, stopping: String) throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let process = try ClawTalkBinary.process(arguments, environment: home.environment)
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let errorText = Mutex<String>("")
        error.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            errorText.locked { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()

        let startDeadline = Date().addingTimeInterval(30)
        while !errorText.locked({ $0.contains(started) }), process.isRunning, Date() < startDeadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let startLog = errorText.locked { $0 }
        guard process.isRunning, startLog.contains(started) else {
            error.fileHandleForReading.readabilityHandler = nil
            if process.isRunning { process.terminate() }
            Issue.record("service did not log its start within 30 s; stderr: \(startLog)")
            return
        }

        // Right after service.started the wake engines are still loading: the stop must not wait
        // for them (how fast it is belongs to the bench; here it only has to end, and cleanly).
        kill(process.processIdentifier, signal)
        let stopDeadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < stopDeadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let stoppedInTime = !process.isRunning
        if !stoppedInTime { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()

        #expect(stoppedInTime, "still running 30 s after the signal")
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(output.fileHandleForReading.readDataToEndOfFile().isEmpty)
        error.fileHandleForReading.readabilityHandler = nil
        let rest = error.fileHandleForReading.readDataToEndOfFile()
        let log = errorText.locked { $0 + String(decoding: rest, as: UTF8.self) }
        #expect(log.contains(stopping), "stderr: \(log)")
        // The first start created the device identity, private to the user.
        let identity = home.state + "/clawtalk/identity.json"
        let mode = try FileManager.default.attributesOfItem(atPath: identity)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(log.contains("deviceId"))
    }
}
