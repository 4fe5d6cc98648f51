import Foundation

extension WireJSON: Codable {
    /// Decodes any JSON value. Keys of decoded objects are sorted, since `Decoder` does not
    /// report source order (parse bytes with `init(parsing:)` to keep it).
    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: WireCodingKey.self) {
            var object = WireObject()
            for key in keyed.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
                object[key.stringValue] = try keyed.decode(WireJSON.self, forKey: key)
            }
            self = .object(object)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [WireJSON] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(WireJSON.self)) }
            self = .array(array)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? single.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    /// Encodes the value; object members in stored order.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let object):
            var keyed = encoder.container(keyedBy: WireCodingKey.self)
            for member in object.members {
                try keyed.encode(member.value, forKey: WireCodingKey(member.key))
            }
        case .array(let elements):
            var unkeyed = encoder.unkeyedContainer()
            for element in elements { try unkeyed.encode(element) }
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .integer(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .number(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        }
    }
}

extension WireJSON {
    /// Encodes an `Encodable` value into JSON. Keys come out sorted (deterministic) and
    /// `nil` optionals are omitted by synthesized conformances.
    public init(encoding value: some Encodable) throws(ProtocolError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw .encodingFailed("\(type(of: value)): \(WireJSON.describe(error))")
        }
        try self.init(parsing: data)
    }

    /// Decodes this value as `type` with `JSONDecoder` (strict: required keys must be present
    /// with the right types; unknown keys are ignored).
    public func decode<T: Decodable>(_ type: T.Type) throws(ProtocolError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: encodedData())
        } catch {
            throw .invalidPayload("\(T.self): \(WireJSON.describe(error))")
        }
    }

    /// A one-line description of a coding error that names paths and types, never values.
    static func describe(_ error: any Error) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.isEmpty
                ? "top level"
                : codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
                    .joined(separator: ".")
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing key '\(key.stringValue)' at \(path(context.codingPath))"
        case DecodingError.typeMismatch(let type, let context):
            return "expected \(type) at \(path(context.codingPath))"
        case DecodingError.valueNotFound(let type, let context):
            return "null where \(type) was expected at \(path(context.codingPath))"
        case DecodingError.dataCorrupted(let context):
            return "invalid value at \(path(context.codingPath))"
        case EncodingError.invalidValue(_, let context):
            return "unencodable value at \(path(context.codingPath))"
        default:
            return "coding failed"
        }
    }
}

/// A coding key for arbitrary object members.
struct WireCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init?(stringValue: String) {
        self.init(stringValue)
    }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
