extension SettingDescriptor {
    /// The allowed values in words, for docs and help (`integer 100...10000 ms`,
    /// `one of off, aec, aecm`, `boolean`).
    public var allowedValuesText: String {
        let base: String
        switch kind {
        case .bool: base = "boolean"
        case .integer, .number: base = "\(kind.typeName) \(rangeText)"
        case .string: base = valuesHint ?? "string"
        case .choice(let allowed): base = "one of " + allowed.joined(separator: ", ")
        case .numberMap: base = "object of numbers \(rangeText)"
        case .textListMap: base = "object of string lists"
        }
        return isSecret ? "\(base), secret" : base
    }

    /// The default as shown in docs and help: JSON5 text plus unit, or `unset`.
    public var defaultText: String {
        let value = defaultValue
        if value.isNull { return "unset" }
        return value.json5Text + (unit.map { " \($0)" } ?? "")
    }
}
