/// A chime: the built-in tone, nothing, or a WAV file. Written in config as `"builtin"`,
/// `"none"` or a path (absolute or starting with `~/`).
public enum ChimeSource: Sendable, Equatable, CustomStringConvertible {
    /// The built-in tone.
    case builtin
    /// No sound.
    case none
    /// A WAV file.
    case file(String)

    /// Parses the config spelling; nil when it is neither keyword nor an absolute or `~/` path.
    public init?(configValue: String) {
        switch configValue {
        case "builtin": self = .builtin
        case "none": self = .none
        default:
            guard configValue.hasPrefix("/") || configValue.hasPrefix("~/") else { return nil }
            self = .file(configValue)
        }
    }

    /// The config spelling.
    public var configValue: String {
        switch self {
        case .builtin: "builtin"
        case .none: "none"
        case .file(let path): path
        }
    }

    /// Same as ``configValue``.
    public var description: String { configValue }
}
