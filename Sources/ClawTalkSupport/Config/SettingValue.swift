/// A setting's value in type-erased form, as the descriptor table reads and writes it.
public enum SettingValue: Sendable, Equatable, CustomStringConvertible {
    /// Unset (an optional setting with no value).
    case null
    /// A flag.
    case bool(Bool)
    /// A whole number.
    case int(Int)
    /// A number.
    case double(Double)
    /// Text (also choices and chime sources, in their config spelling).
    case string(String)
    /// Numbers by name (e.g. wake thresholds).
    case numberMap([String: Double])
    /// Lists of text by name (e.g. wake aliases).
    case textListMap([String: [String]])

    /// Whether this is ``null``.
    public var isNull: Bool { self == .null }

    /// The value as JSON5 source text (strings quoted, map keys sorted).
    public var json5Text: String { jsonValue.json5Text }

    /// The value as a ``JSONValue``.
    public var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(Int64(i))
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .numberMap(let map):
            .object(JSONObject(map.keys.sorted().map { JSONObject.Member(key: $0, value: .double(map[$0]!)) }))
        case .textListMap(let map):
            .object(
                JSONObject(
                    map.keys.sorted().map { key in
                        JSONObject.Member(key: key, value: .array(map[key]!.map { .string($0) }))
                    }))
        }
    }

    /// Same as ``json5Text``.
    public var description: String { json5Text }
}
