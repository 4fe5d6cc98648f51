public import Foundation

/// The XDG base directories (https://specifications.freedesktop.org/basedir-spec/) and
/// clawtalk's locations inside them. A relative or empty `XDG_*` value is ignored, as the
/// specification requires.
public struct XDGPaths: Sendable, Equatable {
    /// The user's home directory (`$HOME`).
    public var home: String
    /// `$XDG_CONFIG_HOME`, default `~/.config`.
    public var configHome: String
    /// `$XDG_STATE_HOME`, default `~/.local/state`.
    public var stateHome: String
    /// `$XDG_DATA_HOME`, default `~/.local/share`.
    public var dataHome: String
    /// `$XDG_RUNTIME_DIR`; nil when unset (no systemd user session).
    public var runtimeDir: String?

    /// Resolves the directories from `environment` (the process environment by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        func absolute(_ name: String) -> String? {
            guard let value = environment[name], value.hasPrefix("/") else { return nil }
            return value.count > 1 && value.hasSuffix("/") ? String(value.dropLast()) : value
        }
        let home = absolute("HOME") ?? NSHomeDirectory()
        self.home = home
        configHome = absolute("XDG_CONFIG_HOME") ?? home + "/.config"
        stateHome = absolute("XDG_STATE_HOME") ?? home + "/.local/state"
        dataHome = absolute("XDG_DATA_HOME") ?? home + "/.local/share"
        runtimeDir = absolute("XDG_RUNTIME_DIR")
    }

    /// The user config file: `$XDG_CONFIG_HOME/clawtalk/config.json5`.
    public var configFile: String { configHome + "/clawtalk/config.json5" }
    /// Identity, tokens, pins: `$XDG_STATE_HOME/clawtalk`.
    public var stateDirectory: String { stateHome + "/clawtalk" }
    /// Downloaded models and runtimes: `$XDG_DATA_HOME/clawtalk`.
    public var dataDirectory: String { dataHome + "/clawtalk" }
    /// `$XDG_RUNTIME_DIR/clawtalk`, nil without a runtime directory.
    public var runtimeDirectory: String? { runtimeDir.map { $0 + "/clawtalk" } }
    /// Where the running service's sockets and status file live: ``runtimeDirectory``, or the
    /// (0700) state directory without a runtime directory.
    public var serviceDirectory: String { runtimeDirectory ?? stateDirectory }
    /// `$XDG_RUNTIME_DIR/clawtalk/control.sock`, or the state directory when there is no runtime directory.
    public var defaultControlSocket: String { serviceDirectory + "/control.sock" }
    /// The Unix socket of the node's own speech server (`clawtalk-speech` or
    /// `wyoming-faster-whisper`): `$XDG_RUNTIME_DIR/clawtalk/speech.sock`, or the state directory.
    public var speechSocket: String { serviceDirectory + "/speech.sock" }
    /// The Unix socket of the node's own keyword scorer (`clawtalk-wake`):
    /// `$XDG_RUNTIME_DIR/clawtalk/wake.sock`, or the state directory.
    public var wakeSocket: String { serviceDirectory + "/wake.sock" }

    /// `path` with a leading `~/` replaced by the home directory.
    public func expandingTilde(_ path: String) -> String {
        path == "~" ? home : path.hasPrefix("~/") ? home + path.dropFirst(1) : path
    }
}
