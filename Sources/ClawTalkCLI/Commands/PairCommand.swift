/// `clawtalk pair`: pairs this device with a gateway by setup code or shared secret.
public struct PairCommand: Command {
    /// The command name.
    public static let name = "pair"
    /// One line for OVERVIEW.
    public static let abstract = "Pair this device with an OpenClaw gateway."
    /// How to get a setup code.
    public static let discussion = """
        Run 'openclaw qr' on the gateway host (or open the Control UI "Node host" dialog) and \
        pass the setup code it prints. Without a setup code, clawtalk connects to \
        --gateway-url with the shared --token or --password and waits for the gateway owner \
        to approve the device.
        """
    /// Setup code, endpoint and credentials.
    public static let options: [OptionSpec] = [
        .option("gateway-url", valueName: "url", help: "WebSocket URL of the gateway (ws:// or wss://)."),
        .option("token", help: "Shared gateway token, when pairing without a setup code."),
        .option("password", help: "Shared gateway password, when pairing without a setup code."),
        .option(
            "tls-fingerprint", valueName: "sha256",
            help: "SHA-256 fingerprint of the gateway's TLS certificate to pin (wss:// only)."),
        .positional("setup-code", arity: .optional, help: "Setup code printed by 'openclaw qr' on the gateway host."),
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

    /// Reads the arguments.
    public init(parsed: ParsedArguments) {
        setupCode = parsed.string("setup-code")
        gatewayURL = parsed.string("gateway-url")
        token = parsed.string("token")
        password = parsed.string("password")
        tlsFingerprint = parsed.string("tls-fingerprint")
    }

    /// A connect carries exactly one shared secret.
    public func validate() throws {
        if token != nil, password != nil {
            throw CLIError.validationFailed("Use either --token or --password, not both.")
        }
    }

    /// Not implemented yet (issue 3).
    public func run(context: CommandContext) async throws -> Int32 {
        throw CLIError.notAvailableYet(command: context.commandLine, issue: 3)
    }
}
