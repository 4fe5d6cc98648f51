import Foundation

/// What was wrong with one value, before the loader adds where it came from.
enum SettingProblem: Error {
    case wrongType(expected: String, found: String)
    case invalidChoice(value: String, allowed: [String])
    case outOfRange(value: String, range: String)
    case invalid(value: String, reason: String)
}

extension SettingDescriptor {
    /// The expected type in words, e.g. `integer or null`.
    var expectedText: String { isOptional ? "\(kind.typeName) or null" : kind.typeName }

    /// A value from the config file, type-checked and validated.
    func decode(json: JSONValue) throws(SettingProblem) -> SettingValue {
        if json == .null {
            guard isOptional else { throw .wrongType(expected: expectedText, found: "null") }
            return .null
        }
        let mismatch = SettingProblem.wrongType(expected: expectedText, found: json.typeName)
        let value: SettingValue
        switch kind {
        case .bool:
            guard let b = json.boolValue else { throw mismatch }
            value = .bool(b)
        case .integer:
            guard let i = json.integerValue else { throw mismatch }
            guard let exact = Int(exactly: i) else { throw .outOfRange(value: String(i), range: rangeText) }
            value = .int(exact)
        case .number:
            guard let d = json.doubleValue else { throw mismatch }
            value = .double(d)
        case .string, .choice:
            guard let s = json.stringValue else { throw mismatch }
            value = .string(s)
        case .numberMap:
            guard let object = json.objectValue else { throw mismatch }
            var map: [String: Double] = [:]
            for member in object.members {
                guard let d = member.value.doubleValue else {
                    throw .wrongType(expected: "number for '\(member.key)'", found: member.value.typeName)
                }
                map[member.key] = d
            }
            value = .numberMap(map)
        case .textListMap:
            guard let object = json.objectValue else { throw mismatch }
            value = .textListMap(try Self.textLists(object))
        }
        return try validate(value)
    }

    /// `{name: ["a", "b"]}` (a lone string counts as a list of one).
    private static func textLists(_ object: JSONObject) throws(SettingProblem) -> [String: [String]] {
        var map: [String: [String]] = [:]
        for member in object.members {
            if let single = member.value.stringValue {
                map[member.key] = [single]
                continue
            }
            guard case .array(let items) = member.value else {
                throw .wrongType(expected: "list of strings for '\(member.key)'", found: member.value.typeName)
            }
            var texts: [String] = []
            for item in items {
                guard let text = item.stringValue else {
                    throw .wrongType(expected: "string in '\(member.key)'", found: item.typeName)
                }
                texts.append(text)
            }
            map[member.key] = texts
        }
        return map
    }

    /// A value from an environment variable or flag, parsed as the setting's type. An empty text
    /// unsets an optional setting.
    func decode(text: String) throws(SettingProblem) -> SettingValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty && isOptional { return .null }
        let mismatch = SettingProblem.wrongType(expected: expectedText, found: display(.string(text)))
        let value: SettingValue
        switch kind {
        case .bool:
            switch trimmed.lowercased() {
            case "true", "1", "yes", "on": value = .bool(true)
            case "false", "0", "no", "off": value = .bool(false)
            default: throw mismatch
            }
        case .integer:
            guard let i = Int(trimmed) else { throw mismatch }
            value = .int(i)
        case .number:
            guard let d = Double(trimmed) else { throw mismatch }
            value = .double(d)
        case .string, .choice:
            value = .string(text)
        case .numberMap:
            value = .numberMap(try Self.parseMap(trimmed, mismatch: mismatch))
        case .textListMap:
            value = .textListMap(try Self.parseLists(trimmed, mismatch: mismatch))
        }
        return try validate(value)
    }

    /// `{a: 0.5}` (JSON5) or `a=0.5,b=0.7`.
    private static func parseMap(_ text: String, mismatch: SettingProblem) throws(SettingProblem) -> [String: Double] {
        if text.hasPrefix("{") {
            guard let object = (try? JSON5Parser.parse(text))?.objectValue else { throw mismatch }
            var map: [String: Double] = [:]
            for member in object.members {
                guard let d = member.value.doubleValue else { throw mismatch }
                map[member.key] = d
            }
            return map
        }
        var map: [String: Double] = [:]
        for pair in text.split(separator: ",") where !pair.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let d = Double(parts[1].trimmingCharacters(in: .whitespaces)) else {
                throw mismatch
            }
            map[parts[0].trimmingCharacters(in: .whitespaces)] = d
        }
        return map
    }

    /// `{a: ["x", "y"]}` (JSON5) or `a=x|y,b=z`.
    private static func parseLists(_ text: String, mismatch: SettingProblem) throws(SettingProblem) -> [String:
        [String]]
    {
        if text.hasPrefix("{") {
            guard let object = (try? JSON5Parser.parse(text))?.objectValue else { throw mismatch }
            return try textLists(object)
        }
        var map: [String: [String]] = [:]
        for pair in text.split(separator: ",") where !pair.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { throw mismatch }
            map[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].split(separator: "|").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
        return map
    }

    /// Range, choice and the setting's own check.
    func validate(_ value: SettingValue) throws(SettingProblem) -> SettingValue {
        switch (kind, value) {
        case (_, .null):
            return value
        case (.integer(let range), .int(let i)):
            guard range.contains(i) else { throw .outOfRange(value: String(i), range: rangeText) }
        case (.number(let range), .double(let d)):
            guard range.contains(d) else { throw .outOfRange(value: String(d), range: rangeText) }
        case (.numberMap(let range), .numberMap(let map)):
            for (name, d) in map.sorted(by: { $0.key < $1.key }) where !range.contains(d) {
                throw .outOfRange(value: "\(name)=\(d)", range: rangeText)
            }
        case (.textListMap, .textListMap(let map)):
            for (name, texts) in map.sorted(by: { $0.key < $1.key })
            where name.trimmingCharacters(in: .whitespaces).isEmpty || texts.isEmpty
                || texts.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty })
            {
                throw .invalid(value: name, reason: "needs a name and non-empty texts")
            }
        case (.choice(let allowed), .string(let s)):
            guard allowed.contains(s) else { throw .invalidChoice(value: display(value), allowed: allowed) }
        case (.string, .string(let s)):
            guard !s.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw .invalid(value: "\"\"", reason: isOptional ? "is empty (use null to unset)" : "is empty")
            }
        default:
            break
        }
        guard let refine else { return value }
        switch refine(value) {
        case .success(let refined): return refined
        case .failure(let rejection): throw .invalid(value: display(value), reason: rejection.reason)
        }
    }

    /// Range text with unit, e.g. `100...10000 ms`.
    var rangeText: String {
        guard let range = kind.rangeText else { return "" }
        return unit.map { "\(range) \($0)" } ?? range
    }

    /// How a value may appear in messages and reports: secrets never shown.
    func display(_ value: SettingValue) -> String {
        if isSecret { return value.isNull ? "<unset>" : "<set, redacted>" }
        return value.json5Text
    }
}
