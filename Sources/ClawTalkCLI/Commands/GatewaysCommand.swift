public import ClawTalkCommand
import ClawTalkGateway
import ClawTalkNode
import ClawTalkProtocol
import ClawTalkSupport
import Foundation

/// `clawtalk gateways`: the registry of paired gateways (protocol.md §11).
public struct GatewaysCommand: Command {
    /// The command name.
    public static let name = "gateways"
    /// One line for OVERVIEW.
    public static let abstract = "List, switch and forget paired gateways."
    /// How the registry relates to the service.
    public static let discussion = """
        Every gateway paired with 'clawtalk pair' keeps its own device tokens, TLS pin and \
        settings. The current one is what 'clawtalk run' connects to unless gateway.url is set. \
        'use' and 'forget' tell a running service to reload.
        """
    /// The three actions; `list` is the default.
    public static let subcommands: [any Command.Type] = [List.self, Use.self, Forget.self]
    /// `clawtalk gateways` lists.
    public static let defaultSubcommand: (any Command.Type)? = List.self

    /// The group takes no arguments of its own.
    public init(parsed: ParsedArguments) {}

    /// The store of the state directory named by `environment`.
    static func store(_ environment: [String: String]) throws -> GatewayStore {
        GatewayStore(directory: try StateDirectory(path: XDGPaths(environment: environment).stateDirectory))
    }

    /// The registered key named by `query`: a key, a URL, or a registered URL.
    static func resolve(_ query: String, in gateways: [GatewaySummary]) throws -> GatewaySummary {
        if let exact = gateways.first(where: { $0.key == query.lowercased() }) { return exact }
        if let endpoint = try? GatewayEndpoint.parse(query),
            let match = gateways.first(where: { $0.key == endpoint.gatewayKey })
        {
            return match
        }
        if let match = gateways.first(where: { $0.url == query }) { return match }
        let known = gateways.isEmpty ? "none are paired" : "known: " + gateways.map(\.key).joined(separator: ", ")
        throw CLIError.invalidInput("unknown gateway '\(query)' (\(known); see 'clawtalk gateways list')")
    }

    /// `clawtalk gateways list`.
    public struct List: Command {
        /// The command name.
        public static let name = "list"
        /// One line for OVERVIEW.
        public static let abstract = "List paired gateways; * marks the current one."
        /// Output format.
        public static let options: [OptionSpec] = [.flag("json", help: "Print machine-readable JSON.")]

        /// `--json`.
        public var json: Bool

        /// Reads the flag.
        public init(parsed: ParsedArguments) {
            json = parsed.flag("json")
        }

        /// Prints the registry.
        public func run(context: CommandContext) async throws -> Int32 {
            let gateways = try GatewaysCommand.store(context.environment).list()
            let configured = try? ConfigLoader(environment: context.environment).load().settings.gateway.url
            context.io.writeOutput(
                json ? Self.renderJSON(gateways) : Self.renderText(gateways, configured: configured ?? nil))
            return ExitCode.success.rawValue
        }

        /// `* key  url  tokens  pin` per gateway.
        static func renderText(_ gateways: [GatewaySummary], configured: String?) -> String {
            guard !gateways.isEmpty else { return "no paired gateways; pair with 'clawtalk pair <setup code>'\n" }
            var out = ""
            for gateway in gateways {
                out += "\(gateway.isCurrent ? "*" : " ") \(gateway.key)\n"
                out += "    url:    \(gateway.url ?? "(unknown)")\n"
                out +=
                    "    tokens: \(gateway.tokenRoles.isEmpty ? "none" : gateway.tokenRoles.joined(separator: ", "))\n"
                out += "    pin:    \(gateway.pinSource.map { "\($0.rawValue)" } ?? "none (system trust)")\n"
            }
            out += "* = current gateway"
            if let configured { out += "; gateway.url (\(configured)) overrides it" }
            return out + "\n"
        }

        /// One JSON array of `{key, url, current, tokenRoles, pinSource}`.
        static func renderJSON(_ gateways: [GatewaySummary]) -> String {
            let objects: [[String: Any]] = gateways.map {
                var object: [String: Any] = ["key": $0.key, "current": $0.isCurrent, "tokenRoles": $0.tokenRoles]
                if let url = $0.url { object["url"] = url }
                if let pin = $0.pinSource { object["pinSource"] = pin.rawValue }
                return object
            }
            let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = (try? JSONSerialization.data(withJSONObject: objects, options: options)) ?? Data("[]".utf8)
            return String(decoding: data, as: UTF8.self) + "\n"
        }
    }

    /// `clawtalk gateways use <key-or-url>`.
    public struct Use: Command {
        /// The command name.
        public static let name = "use"
        /// One line for OVERVIEW.
        public static let abstract = "Make a paired gateway the current one."
        /// The gateway.
        public static let options: [OptionSpec] = [
            .positional("gateway", help: "Gateway key (host:port[/path]) or URL, as 'clawtalk gateways list' shows.")
        ]

        /// The key or URL.
        public var gateway: String

        /// Reads the argument.
        public init(parsed: ParsedArguments) {
            gateway = parsed.string("gateway") ?? ""
        }

        /// Switches and tells a running service.
        public func run(context: CommandContext) async throws -> Int32 {
            let store = try GatewaysCommand.store(context.environment)
            let chosen = try GatewaysCommand.resolve(gateway, in: try store.list())
            try store.use(chosen.key)
            var out = "\(chosen.key) is now the current gateway\n"
            if let configured = try? ConfigLoader(environment: context.environment).load().settings.gateway.url {
                out += "note: gateway.url (\(configured)) in the configuration overrides the current gateway\n"
            }
            if let pid = StatusFile(environment: context.environment).signalReload() {
                out += "told the running clawtalk service (pid \(pid)) to switch\n"
            }
            context.io.writeOutput(out)
            return ExitCode.success.rawValue
        }
    }

    /// `clawtalk gateways forget <key-or-url>`.
    public struct Forget: Command {
        /// The command name.
        public static let name = "forget"
        /// One line for OVERVIEW.
        public static let abstract = "Delete a gateway's tokens, TLS pin and queued data."
        /// Confirmation.
        public static let discussion = """
            Asks for confirmation on a terminal; pass --yes when standard input is not one. To \
            use the gateway again, pair with a new setup code.
            """
        /// The gateway and the confirmation.
        public static let options: [OptionSpec] = [
            .flag("yes", short: "y", help: "Do not ask for confirmation."),
            .positional("gateway", help: "Gateway key (host:port[/path]) or URL, as 'clawtalk gateways list' shows."),
        ]

        /// The key or URL.
        public var gateway: String
        /// `--yes`.
        public var yes: Bool

        /// Reads the arguments.
        public init(parsed: ParsedArguments) {
            gateway = parsed.string("gateway") ?? ""
            yes = parsed.flag("yes")
        }

        /// Confirms, deletes and tells a running service.
        public func run(context: CommandContext) async throws -> Int32 {
            let store = try GatewaysCommand.store(context.environment)
            let chosen = try GatewaysCommand.resolve(gateway, in: try store.list())
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw CLIError.invalidInput(
                        "refusing to forget \(chosen.key) without confirmation: pass --yes (standard input is not a terminal)"
                    )
                }
                context.io.writeError("Forget \(chosen.key) (its device tokens, TLS pin and queued data)? [y/N] ")
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                guard answer == "y" || answer == "yes" else {
                    context.io.writeOutput("kept \(chosen.key)\n")
                    return ExitCode.failure.rawValue
                }
            }
            try store.forget(chosen.key)
            var out = "forgot \(chosen.key)\n"
            if chosen.isCurrent {
                out += "no gateway is current now; pair again or run 'clawtalk gateways use <gateway>'\n"
            }
            if let pid = StatusFile(environment: context.environment).signalReload() {
                out += "told the running clawtalk service (pid \(pid)) to reload\n"
            }
            context.io.writeOutput(out)
            return ExitCode.success.rawValue
        }
    }
}
