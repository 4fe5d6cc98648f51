/// Why the configuration could not be loaded. Messages name the file and line, environment
/// variable or option at fault, and never contain a secret's value.
public enum ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The config file exists (or was named explicitly) but cannot be read.
    case unreadableFile(path: String, reason: String)
    /// The config file is not valid JSON5.
    case syntax(path: String, line: Int, column: Int, message: String)
    /// The config file has a key no setting uses.
    case unknownKey(key: String, file: String, line: Int?, suggestion: String?)
    /// A flag names a key no setting uses.
    case unknownFlag(key: String, suggestion: String?)
    /// A value has the wrong type (`found` is a type name for files, the text for env and flags).
    case wrongType(key: String, expected: String, found: String, source: SettingSource, line: Int?)
    /// A value is not one of the allowed words.
    case invalidChoice(key: String, value: String, allowed: [String], source: SettingSource, line: Int?)
    /// A number is outside its range (`range` like `100...10000 ms`).
    case outOfRange(key: String, value: String, range: String, source: SettingSource, line: Int?)
    /// A value failed the setting's own check.
    case invalidValue(key: String, value: String, reason: String, source: SettingSource, line: Int?)

    /// One line naming where the problem is and what is allowed.
    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason):
            return "cannot read config file \(path): \(reason)"
        case .syntax(let path, let line, let column, let message):
            return "\(path): line \(line), column \(column): \(message)"
        case .unknownKey(let key, let file, let line, let suggestion):
            let at = line.map { "\(file): line \($0)" } ?? file
            return "\(at): unknown setting '\(key)'" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
        case .unknownFlag(let key, let suggestion):
            return "unknown setting '\(key)'" + (suggestion.map { " (did you mean '\($0)'?)" } ?? "")
        case .wrongType(let key, let expected, let found, let source, let line):
            return "\(Self.origin(source, line, key)): expected \(expected), found \(found)"
        case .invalidChoice(let key, let value, let allowed, let source, let line):
            return "\(Self.origin(source, line, key)): \(value) is not one of \(allowed.joined(separator: ", "))"
        case .outOfRange(let key, let value, let range, let source, let line):
            return "\(Self.origin(source, line, key)): \(value) is outside the allowed range \(range)"
        case .invalidValue(let key, let value, let reason, let source, let line):
            return "\(Self.origin(source, line, key)): \(value) \(reason)"
        }
    }

    /// The setting key the error is about, if any.
    public var key: String? {
        switch self {
        case .unreadableFile, .syntax: nil
        case .unknownKey(let key, _, _, _), .unknownFlag(let key, _), .wrongType(let key, _, _, _, _),
            .invalidChoice(let key, _, _, _, _), .outOfRange(let key, _, _, _, _), .invalidValue(let key, _, _, _, _):
            key
        }
    }

    private static func origin(_ source: SettingSource, _ line: Int?, _ key: String) -> String {
        switch source {
        case .default: "default of \(key)"
        case .file(let path): "\(path)\(line.map { ": line \($0)" } ?? ""): \(key)"
        case .environment(let name): "environment variable \(name) (\(key))"
        case .flag(let name): "option \(name) (\(key))"
        }
    }
}
