public import ClawTalkCommand
import ClawTalkDesktop
import ClawTalkGateway
import ClawTalkNode
import ClawTalkProtocol
import ClawTalkSupport
import Foundation

/// `clawtalk discover`: gateways advertised over DNS-SD, and pairing with one of them.
public struct DiscoverCommand: Command {
    /// The command name.
    public static let name = "discover"
    /// One line for OVERVIEW.
    public static let abstract = "Find gateways on the local network (DNS-SD) and pair with one."
    /// Rules.
    public static let discussion = """
        Browses _openclaw-gw._tcp through the Avahi daemon in local. and in the wide-area \
        domain of discovery.wideAreaDomain (or --domain, e.g. a tailnet's openclaw.internal.), \
        and lists each gateway with its TXT hints. TXT records are unauthenticated: --connect \
        dials the resolved SRV target and port, never lanHost/gatewayPort, and only over TLS. \
        The certificate's fingerprint is shown; a first-seen one is pinned only when you \
        confirm it (type yes, or pass it with --tls-fingerprint). An advertised fingerprint \
        never replaces a stored pin. Gateways without TLS are listed but need a setup code or \
        --gateway-url ('clawtalk pair'). Exit status: 0 found (or paired), 1 none found or \
        refused, 69 Avahi not available or the gateway unreachable.
        """
    /// Browse and connect options.
    public static let options: [OptionSpec] = [
        .option(
            "timeout", valueName: "seconds", type: .int, help: "How long to browse.", default: "3"),
        .option("domain", valueName: "domain", help: "Wide-area DNS-SD domain to browse besides local."),
        .flag("json", help: "Print machine-readable JSON."),
        .option("connect", valueName: "gateway", help: "Pair with this gateway (list number or name)."),
        .option("token", help: "Shared gateway token for --connect."),
        .option("password", help: "Shared gateway password for --connect."),
        .option(
            "tls-fingerprint", valueName: "sha256",
            help: "Confirm the certificate fingerprint --connect shows (instead of typing yes)."),
        .flag("no-wait", help: "With --connect: do not wait for the pairing approval."),
        .option(
            "config", valueName: "path", help: "Configuration file to read.",
            default: "~/.config/clawtalk/config.json5"),
    ]

    /// `--timeout`.
    public var timeoutSeconds: Int
    /// `--domain`.
    public var domain: String?
    /// `--json`.
    public var json: Bool
    /// `--connect`.
    public var connect: String?
    /// `--token`.
    public var token: String?
    /// `--password`.
    public var password: String?
    /// `--tls-fingerprint`.
    public var tlsFingerprint: String?
    /// `--no-wait`.
    public var noWait: Bool
    /// `--config`.
    public var configPath: String?

    /// Reads the arguments.
    public init(parsed: ParsedArguments) {
        timeoutSeconds = parsed.int("timeout") ?? 3
        domain = parsed.string("domain")
        json = parsed.flag("json")
        connect = parsed.string("connect")
        token = parsed.string("token")
        password = parsed.string("password")
        tlsFingerprint = parsed.string("tls-fingerprint")
        noWait = parsed.flag("no-wait")
        configPath = parsed.string("config")
    }

    /// Checks combinations.
    public func validate() throws {
        if timeoutSeconds < 1 || timeoutSeconds > 60 {
            throw CLIError.validationFailed("--timeout must be between 1 and 60 seconds.")
        }
        if token != nil, password != nil {
            throw CLIError.validationFailed("Use either --token or --password, not both.")
        }
        if connect == nil, token != nil || password != nil || tlsFingerprint != nil || noWait {
            throw CLIError.validationFailed("--token, --password, --tls-fingerprint and --no-wait need --connect.")
        }
        if connect != nil, json { throw CLIError.validationFailed("--json lists only; drop it with --connect.") }
    }

    /// Browses, lists, and pairs with `--connect`.
    public func run(context: CommandContext) async throws -> Int32 {
        let loaded = try? ConfigLoader(environment: context.environment, configPath: configPath).load()
        let wideArea = domain ?? loaded?.settings.discovery.wideAreaDomain
        let domains: [String?] = [nil] + (wideArea.map { [$0] } ?? [])
        let gateways = try await Self.browse(domains: domains, timeout: .seconds(timeoutSeconds))
        let store = try? GatewaysCommand.store(context.environment)
        guard let connect else {
            context.io.writeOutput(
                json ? Self.renderJSON(gateways) : Self.renderText(gateways, store: store, domains: domains))
            return gateways.isEmpty ? ExitCode.failure.rawValue : ExitCode.success.rawValue
        }
        let chosen = try Self.select(connect, in: gateways)
        let flow = DiscoveryConnectFlow(
            gateway: chosen, confirmedFingerprint: tlsFingerprint, token: token, password: password,
            interactive: isatty(STDIN_FILENO) == 1, readAnswer: { readLine() })
        return try await Self.pair(flow: flow, configPath: configPath, noWait: noWait, context: context)
    }

    /// Plans with `flow` and pairs like `clawtalk pair`.
    static func pair(flow: DiscoveryConnectFlow, configPath: String?, noWait: Bool, context: CommandContext)
        async throws -> Int32
    {
        let flags = ["log.level": "error"]
        let service = try ServiceEnvironment.load(
            flags: flags, configPath: configPath, environment: context.environment,
            writeError: { [io = context.io] in io.writeError($0) })
        let settings = service.effective.settings
        let store = GatewayStore(directory: service.state)
        let plan = try await flow.plan(
            store: store, console: context.io.pairingConsole, allowInsecureRemote: settings.gateway.allowInsecureRemote)
        let factory = GatewayConnectionFactory(
            settings: settings, identity: service.identity, store: store, logger: service.logger,
            environment: context.environment)
        let pairing = PairingFlow(
            plan: plan, factory: factory, timeout: .seconds(300), waitForApproval: !noWait,
            console: context.io.pairingConsole, statusFile: StatusFile(environment: context.environment))
        try await pairing.run()
        return ExitCode.success.rawValue
    }

    /// Browses on a thread of its own (libavahi-client's poll loop blocks).
    static func browse(domains: [String?], timeout: Duration) async throws -> [DiscoveredGateway] {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    let browser = try AvahiBrowser()
                    continuation.resume(returning: try browser.browse(domains: domains, timeout: timeout))
                } catch let error as DiscoveryError {
                    continuation.resume(
                        throwing: CLIError.unavailable(
                            "\(error); install and start avahi-daemon (apt install avahi-daemon; "
                                + "systemctl enable --now avahi-daemon), or pair with a setup code"))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// The gateway named by `query`: a 1-based list number, an instance name or a display name.
    static func select(_ query: String, in gateways: [DiscoveredGateway]) throws -> DiscoveredGateway {
        if let number = Int(query), (1...gateways.count).contains(number) { return gateways[number - 1] }
        let lowered = query.lowercased()
        let matches = gateways.filter {
            $0.instanceName.lowercased() == lowered || $0.displayName.lowercased() == lowered
        }
        guard matches.count == 1, let match = matches.first else {
            let known = gateways.isEmpty ? "none found" : gateways.map(\.displayName).joined(separator: ", ")
            throw CLIError.invalidInput(
                matches.isEmpty
                    ? "no discovered gateway '\(query)' (\(known))"
                    : "'\(query)' names \(matches.count) gateways; use its list number")
        }
        return match
    }

    /// The list for people.
    static func renderText(_ gateways: [DiscoveredGateway], store: GatewayStore?, domains: [String?]) -> String {
        let searched = domains.map { $0 ?? "local." }.joined(separator: ", ")
        guard !gateways.isEmpty else {
            return "no gateways found in \(searched) (advertising may be off; pair with a setup code instead)\n"
        }
        var out = ""
        for (index, gateway) in gateways.enumerated() {
            out += "\(index + 1). \(gateway.displayName)  [\(gateway.instanceName), \(gateway.domain)]\n"
            out += "    dial:     \(gateway.directURL ?? "not TLS: pair with a setup code or --gateway-url")\n"
            out += "    SRV:      \(gateway.targetHost):\(gateway.port)"
            out += gateway.addresses.isEmpty ? "\n" : " (\(gateway.addresses.joined(separator: ", ")))\n"
            var hints: [String] = []
            for key in ["role", "transport", "lanHost", "gatewayPort", "tailnetDns", "sshPort", "gatewayTls"] {
                if let value = gateway.txt[key] { hints.append("\(key)=\(value)") }
            }
            out += "    TXT:      \(hints.isEmpty ? "none" : hints.joined(separator: " "))\n"
            if let advertised = gateway.txt.advertisedFingerprint {
                out += "    TLS:      advertised \(advertised) (unauthenticated)\n"
            }
            if let url = gateway.directURL, let key = try? GatewayEndpoint.parse(url).gatewayKey,
                let pin = try? store?.pin(for: key)
            {
                out += "    pin:      \(pin.fingerprint) (\(pin.source.rawValue))\n"
            }
        }
        out += "TXT values are hints; 'clawtalk discover --connect <number>' dials the SRV target over TLS.\n"
        return out
    }

    /// One JSON array.
    static func renderJSON(_ gateways: [DiscoveredGateway]) -> String {
        let objects: [[String: Any]] = gateways.map { gateway in
            var object: [String: Any] = [
                "instance": gateway.instanceName, "domain": gateway.domain, "host": gateway.targetHost,
                "port": gateway.port, "addresses": gateway.addresses, "tls": gateway.txt.usesTLS,
                "txt": gateway.txt.pairs.mapValues { $0 ?? "" }, "displayName": gateway.displayName,
            ]
            if let url = gateway.directURL { object["url"] = url }
            return object
        }
        let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? JSONSerialization.data(withJSONObject: objects, options: options)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
