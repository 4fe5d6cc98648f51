public import ClawTalkCommand
import ClawTalkGateway
import ClawTalkNode
import ClawTalkProtocol
import ClawTalkSupport
import Foundation

/// `clawtalk pair`: pairs this device with a gateway by join URL, setup code or shared secret.
public struct PairCommand: Command {
    /// The command name.
    public static let name = "pair"
    /// One line for OVERVIEW.
    public static let abstract = "Pair this device with an OpenClaw gateway."
    /// How to get a setup code.
    public static let discussion = """
        Run 'openclaw devices join-code' on the gateway host and pass the join URL it prints \
        (https://<gateway>/j/<code>, single use, about 10 minutes; http:// only to a loopback \
        host): clawtalk fetches the setup code from it once. With a self-signed gateway \
        certificate, add --tls-fingerprint <sha256>. Or run 'openclaw qr' (or open the Control \
        UI "Node host" dialog) and pass the setup code it prints: the raw code, the oc-pair:// \
        link or the whole pasted message. Without a setup code, clawtalk connects to --gateway-url with the shared \
        --token or --password. When the gateway asks for approval, clawtalk prints the request \
        id and the 'openclaw devices approve <id>' command to run on the gateway host, and waits \
        until the device is approved (or --timeout passes). The gateway becomes the current one; \
        a running 'clawtalk run' service is told to connect to it.

        Exit status: 0 paired (or approval pending with --no-wait), 64 invalid or expired setup \
        code, used or expired join code, URL or fingerprint, 69 gateway unreachable, 1 refused, \
        untrusted certificate, TLS pin mismatch or no approval in time.
        """
    /// Setup code, endpoint, credentials and waiting.
    public static let options: [OptionSpec] = [
        .option("gateway-url", valueName: "url", help: "WebSocket URL of the gateway (ws:// or wss://)."),
        .option("token", help: "Shared gateway token, when pairing without a setup code."),
        .option("password", help: "Shared gateway password, when pairing without a setup code."),
        .option(
            "tls-fingerprint", valueName: "sha256",
            help: "SHA-256 fingerprint of the gateway's TLS certificate to pin (wss:// and https:// join URLs)."),
        .flag("no-wait", help: "Do not wait for the approval; 'clawtalk run' connects once approved."),
        .option(
            "timeout", valueName: "seconds", type: .int, help: "How long to wait for the approval.",
            default: "300"),
        .option(
            "config", valueName: "path", help: "Configuration file to read.",
            default: "~/.config/clawtalk/config.json5"),
        .positional(
            "setup-code", arity: .optional,
            help:
                "Join URL from 'openclaw devices join-code', or a setup code from 'openclaw qr' (or its oc-pair:// link)."
        ),
    ]

    /// The setup code, if given.
    public var setupCode: String?
    /// `--gateway-url`.
    public var gatewayURL: String?
    /// `--token`.
    public var token: String?
    /// `--password`.
    public var password: String?
    /// `--tls-fingerprint`.
    public var tlsFingerprint: String?
    /// `--no-wait`.
    public var noWait: Bool
    /// `--timeout` in seconds.
    public var timeoutSeconds: Int
    /// `--config`.
    public var configPath: String?

    /// Reads the arguments.
    public init(parsed: ParsedArguments) {
        setupCode = parsed.string("setup-code")
        gatewayURL = parsed.string("gateway-url")
        token = parsed.string("token")
        password = parsed.string("password")
        tlsFingerprint = parsed.string("tls-fingerprint")
        noWait = parsed.flag("no-wait")
        timeoutSeconds = parsed.int("timeout") ?? 300
        configPath = parsed.string("config")
    }

    /// One shared secret at most; a setup code carries its own URL and credential.
    public func validate() throws {
        if token != nil, password != nil {
            throw CLIError.validationFailed("Use either --token or --password, not both.")
        }
        if setupCode != nil, gatewayURL != nil {
            throw CLIError.validationFailed("Give either a setup code or --gateway-url, not both.")
        }
        if setupCode != nil, token != nil || password != nil {
            throw CLIError.validationFailed("A setup code carries its own credential; drop --token/--password.")
        }
        if setupCode == nil, gatewayURL == nil {
            throw CLIError.validationFailed(
                "Give a setup code (run 'openclaw qr' on the gateway host) or --gateway-url.")
        }
        if timeoutSeconds < 1 {
            throw CLIError.validationFailed("--timeout must be at least 1 second.")
        }
    }

    /// Validates the input, connects as the node and reports the outcome.
    public func run(context: CommandContext) async throws -> Int32 {
        let flags = ["log.level": "error"]
        let configured: Settings
        do {
            configured = try ConfigLoader(environment: context.environment, flags: flags, configPath: configPath)
                .load().settings
        } catch {
            throw CLIError.validationFailed("configuration: \(error)")
        }
        // Everything about the input is checked before any state is touched.
        let plan: PairingPlan
        if let setupCode, JoinURL.looksLikeJoinURL(setupCode) {
            plan = try await joinPlan(setupCode, allowInsecureRemote: configured.gateway.allowInsecureRemote)
        } else {
            plan = try PairingPlan.make(
                setupCode: setupCode, gatewayURL: gatewayURL, token: token, password: password,
                tlsFingerprint: tlsFingerprint, allowInsecureRemote: configured.gateway.allowInsecureRemote)
        }
        let service = try ServiceEnvironment.load(
            flags: flags, configPath: configPath, environment: context.environment,
            writeError: { [io = context.io] in io.writeError($0) })
        let settings = service.effective.settings
        let factory = GatewayConnectionFactory(
            settings: settings, identity: service.identity, store: GatewayStore(directory: service.state),
            logger: service.logger, environment: context.environment)
        let flow = PairingFlow(
            plan: plan, factory: factory, timeout: .seconds(timeoutSeconds), waitForApproval: !noWait,
            console: context.io.pairingConsole, statusFile: StatusFile(environment: context.environment))
        try await flow.run()
        return ExitCode.success.rawValue
    }

    /// Checks the join URL (and pin) before any request, redeems it, and plans as for its
    /// setup code.
    private func joinPlan(_ input: String, allowInsecureRemote: Bool) async throws(PairingError) -> PairingPlan {
        let pin = try PairingPlan.pin(option: tlsFingerprint)
        let url = try JoinURLRedeemer.parse(input, pin: pin)
        let code = try await JoinURLRedeemer().redeem(url, pin: pin)
        return try PairingPlan.make(joined: code, tlsFingerprint: pin, allowInsecureRemote: allowInsecureRemote)
    }
}

extension CommandIO {
    /// The pairing flows' writers: results to standard output, progress to standard error.
    var pairingConsole: PairingConsole {
        PairingConsole(output: output, progress: error)
    }
}
