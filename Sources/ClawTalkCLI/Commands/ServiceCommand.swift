public import ClawTalkCommand
import ClawTalkDesktop
import ClawTalkSupport
import Foundation

/// `clawtalk service`: the systemd user units.
public struct ServiceCommand: Command {
    /// The command name.
    public static let name = "service"
    /// One line for OVERVIEW.
    public static let abstract = "Install or remove the systemd user unit (clawtalk; clawtalk-stt with --with-stt)."
    /// The two actions.
    public static let subcommands: [any Command.Type] = [Install.self, Uninstall.self]

    /// The group takes no arguments of its own.
    public init(parsed: ParsedArguments) {}

    /// What to tell the user about a `systemctl --user` result.
    static func describe(_ result: UserServiceInstaller.SystemctlResult, doing what: String) -> String {
        switch result {
        case .succeeded:
            "systemctl --user \(what): done\n"
        case .notInstalled:
            "systemctl was not found: this system does not run systemd, so start 'clawtalk run' another way "
                + "(the unit files are written anyway)\n"
        case .failed(let why):
            "systemctl --user \(what) failed (\(why)): no systemd user manager is reachable here (no login "
                + "session, or a container); log in as this user and run 'systemctl --user \(what)'\n"
        }
    }

    /// `clawtalk service install`.
    public struct Install: Command {
        /// The command name.
        public static let name = "install"
        /// One line for OVERVIEW.
        public static let abstract = "Write the user units to ~/.config/systemd/user and reload systemd."
        /// What happens.
        public static let discussion = """
            Writes clawtalk.service (ExecStart is this clawtalk binary, or --binary) to \
            $XDG_CONFIG_HOME/systemd/user, then runs 'systemctl --user daemon-reload' and, with \
            --enable, 'systemctl --user enable --now'. The node starts and supervises its \
            Whisper server itself; --with-stt installs it as a unit of its own instead \
            (clawtalk-stt.service, which the node then uses as an external server). Logs go to \
            the journal with their levels ('journalctl --user -u clawtalk'). To keep the node \
            running without a login session, run 'loginctl enable-linger $USER'.
            """
        /// Binary, STT unit and enabling.
        public static let options: [OptionSpec] = [
            .option("binary", valueName: "path", help: "clawtalk binary the unit runs (default: this one)."),
            .flag(
                "with-stt",
                help: "Also install clawtalk-stt.service and make the node use it instead of its own server."),
            .flag("enable", help: "Also enable and start the units now."),
        ]

        /// `--binary`.
        public var binary: String?
        /// `--with-stt`.
        public var withSTT: Bool
        /// `--enable`.
        public var enable: Bool

        /// Reads the arguments.
        public init(parsed: ParsedArguments) {
            binary = parsed.string("binary")
            withSTT = parsed.flag("with-stt")
            enable = parsed.flag("enable")
        }

        /// Writes the units and talks to systemd.
        public func run(context: CommandContext) async throws -> Int32 {
            let installer = UserServiceInstaller(environment: context.environment)
            let executable = try binary.map { try Self.absolute($0) } ?? ClawTalkExecutable.current()
            let written = try installer.install(binary: executable, includeSTT: withSTT)
            var out = written.map { "wrote \($0)\n" }.joined()
            let reload = installer.systemctl(["daemon-reload"])
            out += ServiceCommand.describe(reload, doing: "daemon-reload")
            let units = withSTT ? ["clawtalk-stt", "clawtalk"] : ["clawtalk"]
            if enable, reload == .succeeded {
                out += ServiceCommand.describe(
                    installer.systemctl(["enable", "--now"] + units),
                    doing: "enable --now " + units.joined(separator: " "))
            } else if !enable {
                out += "start it with: systemctl --user enable --now \(units.joined(separator: " "))\n"
            }
            out +=
                "keep it running without a login session: loginctl enable-linger \(context.environment["USER"] ?? "$USER")\n"
            out += "logs: journalctl --user -u clawtalk -f\n"
            context.io.writeOutput(out)
            return ExitCode.success.rawValue
        }

        /// `path` made absolute and checked to be executable.
        static func absolute(_ path: String) throws -> String {
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            guard FileManager.default.isExecutableFile(atPath: absolute) else {
                throw CLIError.invalidInput("--binary \(path) is not an executable file")
            }
            return absolute
        }
    }

    /// `clawtalk service uninstall`.
    public struct Uninstall: Command {
        /// The command name.
        public static let name = "uninstall"
        /// One line for OVERVIEW.
        public static let abstract = "Stop, disable and remove the user units."

        /// No arguments.
        public init(parsed: ParsedArguments) {}

        /// Disables, removes, reloads.
        public func run(context: CommandContext) async throws -> Int32 {
            let installer = UserServiceInstaller(environment: context.environment)
            var out = ""
            let disable = installer.systemctl(["disable", "--now", "clawtalk", "clawtalk-stt"])
            if case .failed = disable { out += ServiceCommand.describe(disable, doing: "disable --now") }
            let removed = try installer.uninstall()
            out +=
                removed.isEmpty
                ? "no clawtalk units in \(installer.unitDirectory)\n" : removed.map { "removed \($0)\n" }.joined()
            if !removed.isEmpty {
                out += ServiceCommand.describe(installer.systemctl(["daemon-reload"]), doing: "daemon-reload")
            }
            context.io.writeOutput(out)
            return ExitCode.success.rawValue
        }
    }
}
