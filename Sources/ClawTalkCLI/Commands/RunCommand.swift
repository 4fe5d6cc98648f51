public import ClawTalkCommand
import ClawTalkNode
import ClawTalkSpeech
import ClawTalkSupport

/// `clawtalk run`: the voice node service in the foreground (the default subcommand).
public struct RunCommand: Command {
    /// The command name.
    public static let name = "run"
    /// One line for OVERVIEW.
    public static let abstract = "Run the voice node service (foreground; use the systemd user unit for background)."
    /// What the service does and how it stops.
    public static let discussion = """
        Connects to the gateway, listens for the wake word and push-to-talk requests and \
        speaks replies, until SIGTERM or SIGINT. The gateway is gateway.url if set, else the \
        current paired gateway ('clawtalk gateways'). SIGHUP resumes a paused connection and \
        switches to a newly chosen gateway. 'clawtalk status' shows the connection state. Logs \
        go to standard error (the journal under systemd).
        """
    /// Service settings that override the environment and the config file.
    public static let options: [OptionSpec] = [
        .option(
            "config", valueName: "path", help: "Configuration file to read.",
            default: "~/.config/clawtalk/config.json5"),
        .option("gateway-url", valueName: "url", help: "WebSocket URL of the gateway (ws:// or wss://)."),
        .option("mic-device", valueName: "name", help: "Sound server source to capture from (see 'clawtalk devices')."),
        .option("snd-device", valueName: "name", help: "Sound server sink to play to (see 'clawtalk devices')."),
        .option(
            "log-level", valueName: "level", help: "Lowest level of log lines to write.", default: "info",
            allowedValues: LogLevel.allCases.map(\.rawValue)),
        .option(
            "log-format", valueName: "format", help: "Format of log lines on standard error.", default: "text",
            allowedValues: ["text", "json"]),
        .flag("log-sensitive", help: "Log transcripts, spoken text and tokens instead of redacting them."),
    ]

    /// `--config`.
    public var configPath: String?
    /// Settings given as options, by dotted key (`gateway.url`, `log.level`, …).
    public var settingFlags: [String: String]

    /// Reads the arguments (absent options stay unset so lower-precedence settings can apply).
    public init(parsed: ParsedArguments) {
        configPath = parsed.string("config")
        settingFlags = Self.settingOptions.reduce(into: [:]) { $0[$1.key] = parsed.string($1.option) }
        if parsed.flag("log-sensitive") { settingFlags["log.sensitive"] = "true" }
    }

    /// Options that set a configuration key.
    static let settingOptions: [(option: String, key: String)] = [
        ("gateway-url", "gateway.url"), ("mic-device", "mic.device"), ("snd-device", "speaker.device"),
        ("log-level", "log.level"), ("log-format", "log.format"),
    ]

    /// Runs the service until SIGTERM or SIGINT, logging start and stop to standard error.
    public func run(context: CommandContext) async throws -> Int32 {
        let service = try ServiceEnvironment.load(
            flags: settingFlags, configPath: configPath, environment: context.environment,
            writeError: { [io = context.io] in io.writeError($0) })
        let missing = SpeechSetup.missing(paths: XDGPaths(environment: context.environment))
        if !missing.isEmpty {
            // The node still runs (PocketSphinx spots wake words, the gateway may transcribe),
            // but says once what is absent and what installs it.
            service.logger.warning(
                "setup.incomplete",
                [
                    "missing": .string(missing.map(\.description).joined(separator: ", ")),
                    "fix": .string(SpeechSetup.command()),
                ])
        }
        let code: Int32
        do {
            let node = try await LiveNode.compose(service: service, environment: context.environment)
            code = try await node.run()
        }
        // The node's components are released by now (a stop's time after this line is the
        // process's exit).
        service.logger.child(category: "service").debug("service.released", [:])
        return code
    }
}
