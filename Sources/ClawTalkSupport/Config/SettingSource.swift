/// Where an effective setting came from, in precedence order (flag beats environment beats
/// file beats default).
public enum SettingSource: Sendable, Hashable, CustomStringConvertible {
    /// The built-in default.
    case `default`
    /// The config file at this path.
    case file(String)
    /// This environment variable.
    case environment(String)
    /// This command-line option (e.g. `--gateway-url`).
    case flag(String)

    /// `default`, `file /path`, `env CLAWTALK_…` or `flag --…`.
    public var description: String {
        switch self {
        case .default: "default"
        case .file(let path): "file \(path)"
        case .environment(let name): "env \(name)"
        case .flag(let name): "flag \(name)"
        }
    }
}
