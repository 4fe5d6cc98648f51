/// One converted value (phase 3).
public enum ArgumentValue: Equatable, Sendable {
    /// A flag occurrence.
    case flag
    /// Text, already checked against the allowed values.
    case string(String)
    /// A decimal integer.
    case int(Int)
    /// A finite number.
    case double(Double)
}
