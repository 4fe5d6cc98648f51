/// A typed value in a log record's field map.
///
/// Literals work directly: `["protocol": 4, "role": "node", "ok": true]`.
public enum LogValue: Sendable, Equatable, CustomStringConvertible {
    /// Text.
    case string(String)
    /// A whole number.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A flag.
    case bool(Bool)
    /// A sensitive value that was removed; only its length (in characters) is kept.
    case redacted(length: Int)

    /// The value as plain text (`<redacted len=N>` for redacted values), unquoted.
    public var description: String {
        switch self {
        case .string(let s): s
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .bool(let b): b ? "true" : "false"
        case .redacted(let length): "<redacted len=\(length)>"
        }
    }

    /// This value with its content replaced by its length.
    public var redacted: LogValue {
        switch self {
        case .redacted: self
        default: .redacted(length: description.count)
        }
    }
}

extension LogValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByStringInterpolation
{
    /// A string field from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer field from a literal.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A floating-point field from a literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A boolean field from a literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
