/// An arbitrary JSON value as it crosses the wire: frame payloads, params and `details`.
///
/// Integers are kept exact (`integer`) and apart from other numbers (`number`), so
/// millisecond timestamps survive a round trip. Objects keep their key order (see
/// ``WireObject``). Equality is semantic: `1` equals `1.0`, and objects compare by members,
/// not by key order.
public enum WireJSON: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits 64 bits.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([WireJSON])
    /// An object with ordered keys.
    case object(WireObject)
}

extension WireJSON {
    /// The member `key` when this is an object, else nil.
    public subscript(key: String) -> WireJSON? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at `index` when this is an array and the index is in range, else nil.
    public subscript(index: Int) -> WireJSON? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    /// True for `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The string when it is non-empty after trimming whitespace, else nil.
    public var nonEmptyStringValue: String? {
        guard let value = stringValue, !value.trimmingWhitespace().isEmpty else { return nil }
        return value
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value as an exact integer: an `integer`, or a `number` with no fractional part
    /// that fits 64 bits (JavaScript's `Number.isInteger`). Nil otherwise.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value):
            return value
        case .number(let value):
            guard value.isFinite, value.rounded(.towardZero) == value,
                value >= -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0
            else { return nil }
            return Int64(value)
        default:
            return nil
        }
    }

    /// ``int64Value`` as `Int`.
    public var intValue: Int? {
        int64Value.flatMap { Int(exactly: $0) }
    }

    /// Any number as a `Double`.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The elements, when this is an array.
    public var arrayValue: [WireJSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, when this is an object.
    public var objectValue: WireObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The string elements of an array, skipping elements of other types; nil when not an array.
    public var stringArrayValue: [String]? {
        arrayValue?.compactMap(\.stringValue)
    }

    /// A short name of the JSON type, for error messages that must not echo contents.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension Optional where Wrapped == WireJSON {
    /// The value unless it is absent or JSON `null`.
    public var nonNull: WireJSON? {
        guard case .some(let value) = self, !value.isNull else { return .none }
        return value
    }
}

extension WireJSON: Equatable {
    /// Semantic equality: numbers compare by value across `integer`/`number`, objects by members.
    public static func == (lhs: WireJSON, rhs: WireJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.integer, .number), (.number, .integer), (.number, .number):
            if let a = lhs.int64Value, let b = rhs.int64Value { return a == b }
            return lhs.doubleValue == rhs.doubleValue
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        default: return false
        }
    }
}

extension WireJSON: Hashable {
    /// Hashes consistently with ``==(_:_:)`` (integral numbers hash as integers).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case .bool(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .integer, .number:
            hasher.combine(2)
            if let exact = int64Value {
                hasher.combine(exact)
            } else {
                hasher.combine(doubleValue)
            }
        case .string(let value):
            hasher.combine(3)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(4)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(5)
            hasher.combine(value)
        }
    }
}

// Deliberately not ExpressibleByNilLiteral: `cond ? nil : value` would silently build `.null`
// instead of an absent optional.
extension WireJSON: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// Boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// Floating-point literal.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// String literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Array literal.
    public init(arrayLiteral elements: WireJSON...) { self = .array(elements) }
    /// Dictionary literal: an object with the literal's key order.
    public init(dictionaryLiteral elements: (String, WireJSON)...) {
        self = .object(WireObject(elements))
    }
}
