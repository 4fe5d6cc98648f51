/// The type of a setting and its allowed values.
public enum SettingKind: Sendable, Equatable {
    /// `true`/`false` (env and flags also take `1/0`, `yes/no`, `on/off`).
    case bool
    /// A whole number within the range.
    case integer(ClosedRange<Int>)
    /// A number within the range.
    case number(ClosedRange<Double>)
    /// Non-empty text.
    case string
    /// One of the listed words.
    case choice([String])
    /// An object of numbers within the range, keyed by name.
    case numberMap(ClosedRange<Double>)
    /// An object of lists of non-empty text, keyed by name.
    case textListMap

    /// The type in words, for errors and docs.
    public var typeName: String {
        switch self {
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .string, .choice: "string"
        case .numberMap: "object of numbers"
        case .textListMap: "object of string lists"
        }
    }

    /// The allowed range as text (`100...10000`), nil for kinds without one.
    public var rangeText: String? {
        switch self {
        case .integer(let r): "\(r.lowerBound)...\(r.upperBound)"
        case .number(let r), .numberMap(let r): "\(r.lowerBound)...\(r.upperBound)"
        default: nil
        }
    }
}
