public import ClawTalkCommand
import ClawTalkGateway
import ClawTalkNode
import ClawTalkSupport
import Foundation

/// `clawtalk status`: the running node's connection, pairing and audio state.
public struct StatusCommand: Command {
    /// The command name.
    public static let name = "status"
    /// One line for OVERVIEW.
    public static let abstract = "Show the connection, pairing and audio state of the running node."
    /// Where the state comes from.
    public static let discussion = """
        Reads the snapshot the running 'clawtalk run' service keeps in \
        $XDG_RUNTIME_DIR/clawtalk/status.json: the gateway, the state of the node and operator \
        connections, the device id, a pending pairing request with the command that approves it, \
        the declared commands, the voice phase (idle, listening, thinking, speaking) with a \
        microphone level meter and the last transcript, and the last error. --watch redraws on \
        every change (the level several times a second). Without a running service it lists \
        the paired gateways instead.
        """
    /// Output format and follow mode.
    public static let options: [OptionSpec] = [
        .flag("json", help: "Print machine-readable JSON."),
        .flag("watch", help: "Keep printing updates until interrupted."),
    ]

    /// `--json`.
    public var json: Bool
    /// `--watch`.
    public var watch: Bool

    /// Reads the flags.
    public init(parsed: ParsedArguments) {
        json = parsed.flag("json")
        watch = parsed.flag("watch")
    }

    /// Prints the status once, or on every change with `--watch`.
    public func run(context: CommandContext) async throws -> Int32 {
        let file = StatusFile(environment: context.environment)
        let reader = StatusReader(environment: context.environment, file: file)
        guard watch else {
            context.io.writeOutput(render(try reader.report(), compact: false, redraw: false))
            return ExitCode.success.rawValue
        }
        let redraw = !json && isatty(STDOUT_FILENO) == 1
        let json = self.json
        let io = context.io
        let runner = ServiceRunner(work: {
            var last: StatusReport?
            while !Task.isCancelled {
                let report = (try? reader.report()) ?? last
                if let report, report != last {
                    last = report
                    io.writeOutput(
                        Self.render(report, json: json, compact: true, redraw: redraw, separate: !redraw && !json))
                }
                try await Task.sleep(for: .milliseconds(250))
            }
        })
        return try await runner.run()
    }

    private func render(_ report: StatusReport, compact: Bool, redraw: Bool) -> String {
        Self.render(report, json: json, compact: compact, redraw: redraw, separate: false)
    }

    /// One rendering: JSON (one line when `compact`) or text, after a screen clear when `redraw`.
    static func render(_ report: StatusReport, json: Bool, compact: Bool, redraw: Bool, separate: Bool) -> String {
        let body = json ? report.json(compact: compact) : report.text
        if redraw { return "\u{1B}[H\u{1B}[2J" + body }
        return separate ? body + "\n" : body
    }
}

/// Reads the snapshot and, without a running service, the state directory.
struct StatusReader: Sendable {
    /// The environment (XDG paths, configuration).
    var environment: [String: String]
    /// The status file.
    var file: StatusFile

    /// The current report.
    func report() throws -> StatusReport {
        let snapshot = try file.read()
        let service = snapshot.flatMap { StatusFile.isAlive($0.pid) ? $0 : nil }
        let paths = XDGPaths(environment: environment)
        let state = try? StateDirectory(path: paths.stateDirectory)
        let identityPath = paths.stateDirectory + "/identity.json"
        let deviceId =
            FileManager.default.fileExists(atPath: identityPath)
            ? try? IdentityStore(fileURL: URL(fileURLWithPath: identityPath)).load().deviceId : nil
        let configured = try? ConfigLoader(environment: environment).load().settings.gateway.url
        return StatusReport.gather(
            service: service, deviceId: deviceId, configuredURL: configured ?? nil,
            store: state.map { GatewayStore(directory: $0) })
    }
}
