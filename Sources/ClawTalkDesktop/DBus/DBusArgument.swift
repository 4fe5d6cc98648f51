/// A D-Bus value of the small subset clawtalk sends and reads: the basic types of the
/// freedesktop notification interface, string arrays and `a{sv}` dictionaries.
public enum DBusArgument: Sendable, Hashable, CustomStringConvertible {
    /// `s`.
    case string(String)
    /// `u`.
    case uint32(UInt32)
    /// `i`.
    case int32(Int32)
    /// `b`.
    case boolean(Bool)
    /// `y`.
    case byte(UInt8)
    /// `as`.
    case stringArray([String])
    /// `a{sv}` (values travel as variants).
    case dictionary([String: DBusArgument])
    /// A value of a type this subset does not read, with its signature.
    case unsupported(String)

    /// The D-Bus type signature.
    public var signature: String {
        switch self {
        case .string: "s"
        case .uint32: "u"
        case .int32: "i"
        case .boolean: "b"
        case .byte: "y"
        case .stringArray: "as"
        case .dictionary: "a{sv}"
        case .unsupported(let signature): signature
        }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The unsigned integer, if this is one.
    public var uint32Value: UInt32? {
        if case .uint32(let value) = self { value } else { nil }
    }

    /// Readable form for tests and logs.
    public var description: String {
        switch self {
        case .string(let value): "\"\(value)\""
        case .uint32(let value): "uint32 \(value)"
        case .int32(let value): "int32 \(value)"
        case .boolean(let value): "\(value)"
        case .byte(let value): "byte \(value)"
        case .stringArray(let values): "\(values)"
        case .dictionary(let values): "\(values.sorted { $0.key < $1.key })"
        case .unsupported(let signature): "<\(signature)>"
        }
    }
}
