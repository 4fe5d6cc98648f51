import ClawTalkSupport

/// Strict JSON text for Wyoming events: peers parse with Python's `json`, which rejects JSON5
/// (``JSONValue/json5Text`` writes bare keys and `NaN`).
enum WyomingJSON {
    /// Compact JSON for `value`; non-finite numbers become `null`.
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? "\(d)" : "null"
        case .string(let s): return JSONValue.quoted(s)
        case .array(let items): return "[" + items.map(text).joined(separator: ",") + "]"
        case .object(let object):
            return "{" + object.members.map { JSONValue.quoted($0.key) + ":" + text($0.value) }.joined(separator: ",")
                + "}"
        }
    }
}
