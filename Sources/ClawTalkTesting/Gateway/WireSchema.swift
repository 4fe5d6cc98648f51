import ClawTalkProtocol

/// A closed JSON schema (the gateway's TypeBox schemas with `additionalProperties:false`),
/// checked the way AJV reports its first error: `at /client: unexpected property 'buildId'`.
indirect enum WireSchema: Sendable {
    /// Anything, including `null`.
    case any
    /// A string with a minimum length and an optional exact, case-sensitive value set.
    case string(minLength: Int = 0, oneOf: Set<String>? = nil)
    /// An integer (JavaScript `Number.isInteger`) with an optional minimum.
    case integer(minimum: Int64? = nil)
    /// Any number.
    case number
    /// `true` or `false`.
    case boolean
    /// An array of elements of one schema.
    case array(WireSchema)
    /// An object whose every value has one schema (`Record<string, T>`).
    case record(WireSchema)
    /// A closed object.
    case object(ObjectSchema)
    /// The inner schema or `null`.
    case nullable(WireSchema)

    /// A closed object with the given properties, `required` naming the mandatory ones.
    static func closed(_ properties: KeyValuePairs<String, WireSchema>, required: [String] = []) -> WireSchema {
        .object(ObjectSchema(properties: Array(properties).map { ($0.key, $0.value) }, required: required))
    }

    /// A non-empty string.
    static let nonEmptyString = WireSchema.string(minLength: 1)

    /// The first violation as `at <path>: <message>`, or nil when `value` conforms.
    func firstError(_ value: WireJSON, at path: String = "") -> String? {
        switch self {
        case .any:
            return nil
        case .nullable(let inner):
            return value.isNull ? nil : inner.firstError(value, at: path)
        case .string(let minLength, let allowed):
            guard let string = value.stringValue else { return Self.at(path, "must be string") }
            if string.utf16.count < minLength {
                return Self.at(path, "must NOT have fewer than \(minLength) characters")
            }
            if let allowed, !allowed.contains(string) {
                return Self.at(path, "must be equal to one of the allowed values")
            }
            return nil
        case .integer(let minimum):
            guard let int = value.int64Value else { return Self.at(path, "must be integer") }
            if let minimum, int < minimum { return Self.at(path, "must be >= \(minimum)") }
            return nil
        case .number:
            return value.doubleValue == nil ? Self.at(path, "must be number") : nil
        case .boolean:
            return value.boolValue == nil ? Self.at(path, "must be boolean") : nil
        case .array(let element):
            guard let elements = value.arrayValue else { return Self.at(path, "must be array") }
            for (index, item) in elements.enumerated() {
                if let error = element.firstError(item, at: "\(path)/\(index)") { return error }
            }
            return nil
        case .record(let element):
            guard let object = value.objectValue else { return Self.at(path, "must be object") }
            for member in object.members {
                if let error = element.firstError(member.value, at: "\(path)/\(member.key)") { return error }
            }
            return nil
        case .object(let schema):
            guard let object = value.objectValue else { return Self.at(path, "must be object") }
            return schema.firstError(object, at: path)
        }
    }

    /// `at <path>: <message>`, the root written as `root`.
    static func at(_ path: String, _ message: String) -> String {
        "at \(path.isEmpty ? "root" : path): \(message)"
    }
}

/// The properties of a closed object: required first, then no unknown keys, then each value.
struct ObjectSchema: Sendable {
    /// Known properties in declaration order.
    let properties: [(String, WireSchema)]
    /// Mandatory property names.
    let required: [String]

    func firstError(_ object: WireObject, at path: String) -> String? {
        for key in required where object[key] == nil {
            return WireSchema.at(path, "must have required property '\(key)'")
        }
        let known = Set(properties.map(\.0))
        for key in object.keys where !known.contains(key) {
            return WireSchema.at(path, "unexpected property '\(key)'")
        }
        for (key, schema) in properties {
            guard let value = object[key] else { continue }
            if let error = schema.firstError(value, at: "\(path)/\(key)") { return error }
        }
        return nil
    }
}
