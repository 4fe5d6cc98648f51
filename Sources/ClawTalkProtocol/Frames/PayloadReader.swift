/// Lenient field access for inbound payloads: required fields throw
/// ``ProtocolError/invalidPayload(_:)`` naming the payload and key; optional fields of the
/// wrong type read as absent; unknown keys are ignored.
struct PayloadReader {
    /// Name used in error messages (e.g. `hello-ok`).
    let what: String
    /// The payload object.
    let object: WireObject

    init(_ json: WireJSON?, what: String) throws(ProtocolError) {
        guard let json else { throw .invalidPayload("\(what): missing") }
        guard let object = json.objectValue else {
            throw .invalidPayload("\(what): expected an object, got \(json.typeName)")
        }
        self.what = what
        self.object = object
    }

    subscript(key: String) -> WireJSON? {
        object[key]
    }

    func string(_ key: String) -> String? {
        object[key]?.stringValue
    }

    func int(_ key: String) -> Int? {
        object[key]?.intValue
    }

    func int64(_ key: String) -> Int64? {
        object[key]?.int64Value
    }

    func double(_ key: String) -> Double? {
        object[key]?.doubleValue
    }

    func bool(_ key: String) -> Bool? {
        object[key]?.boolValue
    }

    func strings(_ key: String) -> [String]? {
        object[key]?.stringArrayValue
    }

    func requiredString(_ key: String) throws(ProtocolError) -> String {
        guard let value = object[key] else { throw .invalidPayload("\(what): missing '\(key)'") }
        guard let string = value.stringValue else {
            throw .invalidPayload("\(what): '\(key)' must be a string, got \(value.typeName)")
        }
        return string
    }

    func requiredInt(_ key: String) throws(ProtocolError) -> Int {
        guard let value = object[key] else { throw .invalidPayload("\(what): missing '\(key)'") }
        guard let int = value.intValue else {
            throw .invalidPayload("\(what): '\(key)' must be an integer, got \(value.typeName)")
        }
        return int
    }

    func requiredBool(_ key: String) throws(ProtocolError) -> Bool {
        guard let value = object[key] else { throw .invalidPayload("\(what): missing '\(key)'") }
        guard let bool = value.boolValue else {
            throw .invalidPayload("\(what): '\(key)' must be a boolean, got \(value.typeName)")
        }
        return bool
    }
}
