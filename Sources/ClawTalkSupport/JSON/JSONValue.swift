/// A parsed JSON or JSON5 value. Integers written without fraction or exponent stay exact
/// (``int(_:)``); objects keep member order.
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer literal (decimal or hex) that fits in 64 bits.
    case int(Int64)
    /// Any other number, including `Infinity`, `NaN` and integers too large for `int`.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object with ordered, unique keys.
    case object(JSONObject)

    /// The kind of value in words (`"integer"`, `"string"`, …), for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The numeric value of `int` or `double`, else nil.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// The value of `int`, or of a `double` that is a whole number in `Int64` range; else nil.
    public var integerValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d):
            // Exact round trip through Int64 (no libm rounding needed); the bounds keep the
            // conversion from trapping.
            guard d.isFinite, d >= -9.223_372_036_854_775_808e18, d < 9.223_372_036_854_775_808e18 else { return nil }
            let i = Int64(d)
            return Double(i) == d ? i : nil
        default: return nil
        }
    }

    /// The string of a `string`, else nil.
    public var stringValue: String? {
        if case .string(let s) = self { s } else { nil }
    }

    /// The flag of a `bool`, else nil.
    public var boolValue: Bool? {
        if case .bool(let b) = self { b } else { nil }
    }

    /// The object of an `object`, else nil.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { o } else { nil }
    }

    /// The elements of an `array`, else nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { a } else { nil }
    }
}
