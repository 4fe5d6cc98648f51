import Foundation

/// `clawtalk run`: the voice node service in the foreground (the default subcommand).
public struct RunCommand: Command {
    /// The command name.
    public static let name = "run"
    /// One line for OVERVIEW.
    public static let abstract = "Run the voice node service (foreground; use the systemd user unit for background)."
    /// What the service does and how it stops.
    public static let discussion = """
        Connects to the gateway, listens for the wake word and push-to-talk requests and \
        speaks replies, until SIGTERM or SIGINT. Logs go to standard error (the journal under \
        systemd).
        """
    /// Service settings that override the environment and the config file.
    public static let options: [OptionSpec] = [
        .option(
            "config", valueName: "path", help: "Configuration file to read.",
            default: "~/.config/clawtalk/clawtalk.json5"),
        .option("gateway-url", valueName: "url", help: "WebSocket URL of the gateway (ws:// or wss://)."),
        .option("mic-device", valueName: "name", help: "Sound server source to capture from (see 'clawtalk devices')."),
        .option("snd-device", valueName: "name", help: "Sound server sink to play to (see 'clawtalk devices')."),
        .option(
            "log-level", valueName: "level", help: "Lowest level of log lines to write.", default: "info",
            allowedValues: LogLineFormatter.Level.allCases.map(\.rawValue)),
        .option(
            "log-format", valueName: "format", help: "Format of log lines on standard error.", default: "text",
            allowedValues: LogLineFormatter.Format.allCases.map(\.rawValue)),
        .flag("log-sensitive", help: "Log transcripts, spoken text and tokens instead of redacting them."),
        .option(
            "debug-audio-dir", valueName: "dir",
            help: "Write the audio before each wake and each utterance to WAV files in this directory."),
    ]

    /// `--config`.
    public var configPath: String?
    /// `--gateway-url`.
    public var gatewayURL: String?
    /// `--mic-device`.
    public var micDevice: String?
    /// `--snd-device`.
    public var sndDevice: String?
    /// `--log-level`.
    public var logLevel: LogLineFormatter.Level?
    /// `--log-format`.
    public var logFormat: LogLineFormatter.Format?
    /// `--log-sensitive`.
    public var logSensitive: Bool
    /// `--debug-audio-dir`.
    public var debugAudioDir: String?

    /// Reads the arguments (absent options stay nil so lower-precedence settings can apply).
    public init(parsed: ParsedArguments) {
        configPath = parsed.string("config")
        gatewayURL = parsed.string("gateway-url")
        micDevice = parsed.string("mic-device")
        sndDevice = parsed.string("snd-device")
        logLevel = parsed.value("log-level", as: LogLineFormatter.Level.self)
        logFormat = parsed.value("log-format", as: LogLineFormatter.Format.self)
        logSensitive = parsed.flag("log-sensitive")
        debugAudioDir = parsed.string("debug-audio-dir")
    }

    /// Runs the service until SIGTERM or SIGINT, logging start and stop to standard error.
    public func run(context: CommandContext) async throws -> Int32 {
        let formatter = LogLineFormatter(format: logFormat ?? .text, minimumLevel: logLevel ?? .info)
        let io = context.io
        let runner = ServiceRunner(work: ServiceRunner.idle) { event in
            let line: String?
            switch event {
            case .started:
                line = formatter.line(
                    .info, event: "service.started",
                    fields: [
                        "version": ClawTalkVersion.current, "pid": String(ProcessInfo.processInfo.processIdentifier),
                    ])
            case .stopping(.signal(let number)):
                line = formatter.line(.info, event: "service.stopping", fields: ["signal": Self.signalName(number)])
            case .stopping(.finished):
                line = formatter.line(.info, event: "service.stopping", fields: ["reason": "finished"])
            case .stopping(.failed(let message)):
                line = formatter.line(
                    .error, event: "service.stopping", fields: ["reason": "failed", "error": message])
            }
            if let line { io.writeError(line) }
        }
        return try await runner.run()
    }

    /// `TERM` for `SIGTERM`, `INT` for `SIGINT`, else the number.
    static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGTERM: "TERM"
        case SIGINT: "INT"
        default: String(number)
        }
    }
}
