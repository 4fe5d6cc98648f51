extension JSONValue {
    /// `s` as a double-quoted JSON string literal (escapes `"`, `\` and control characters).
    public static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Compact JSON5 text for the value (`Infinity`/`NaN` as JSON5 literals, strings double-quoted).
    public var json5Text: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): Self.numberText(d)
        case .string(let s): Self.quoted(s)
        case .array(let items): "[" + items.map(\.json5Text).joined(separator: ", ") + "]"
        case .object(let object):
            object.members.isEmpty
                ? "{}"
                : "{ "
                    + object.members.map { "\(Self.keyText($0.key)): \($0.value.json5Text)" }
                    .joined(separator: ", ") + " }"
        }
    }

    /// A key as JSON5 source: bare when it is a plain identifier, else quoted.
    public static func keyText(_ key: String) -> String {
        guard let first = key.unicodeScalars.first, JSON5Scanner.isIdentifierStart(first),
            key.unicodeScalars.allSatisfy(JSON5Scanner.isIdentifierPart)
        else { return quoted(key) }
        return key
    }

    /// A double as JSON5 source.
    static func numberText(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d > 0 ? "Infinity" : "-Infinity" }
        return String(d)
    }
}
