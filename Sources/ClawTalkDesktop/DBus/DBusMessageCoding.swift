internal import CDBus

/// Appends ``DBusArgument`` values to a message and reads them back, through libdbus's
/// iterators (the variadic `dbus_message_append_args` is not callable from Swift).
enum DBusMessageCoding {
    /// D-Bus type codes (the `DBUS_TYPE_*` macros are character casts Swift does not import).
    enum TypeCode {
        static let invalid: Int32 = 0
        static let string = Int32(UInt8(ascii: "s"))
        static let uint32 = Int32(UInt8(ascii: "u"))
        static let int32 = Int32(UInt8(ascii: "i"))
        static let boolean = Int32(UInt8(ascii: "b"))
        static let byte = Int32(UInt8(ascii: "y"))
        static let array = Int32(UInt8(ascii: "a"))
        static let variant = Int32(UInt8(ascii: "v"))
        static let dictEntry = Int32(UInt8(ascii: "e"))
    }

    /// Appends `arguments` to `message`.
    static func append(_ arguments: [DBusArgument], to message: OpaquePointer) throws(DBusClientError) {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        for argument in arguments {
            try append(argument, to: &iterator)
        }
    }

    private static func append(_ argument: DBusArgument, to iterator: inout DBusMessageIter) throws(DBusClientError) {
        var ok: dbus_bool_t = 1
        switch argument {
        case .string(let value):
            ok = value.withCString { text in
                var pointer: UnsafePointer<CChar>? = text
                return dbus_message_iter_append_basic(&iterator, TypeCode.string, &pointer)
            }
        case .uint32(var value):
            ok = dbus_message_iter_append_basic(&iterator, TypeCode.uint32, &value)
        case .int32(var value):
            ok = dbus_message_iter_append_basic(&iterator, TypeCode.int32, &value)
        case .boolean(let value):
            var raw: dbus_bool_t = value ? 1 : 0
            ok = dbus_message_iter_append_basic(&iterator, TypeCode.boolean, &raw)
        case .byte(var value):
            ok = dbus_message_iter_append_basic(&iterator, TypeCode.byte, &value)
        case .stringArray(let values):
            try withContainer(in: &iterator, type: TypeCode.array, signature: "s", what: "array") {
                array throws(DBusClientError) in
                for value in values { try append(.string(value), to: &array) }
            }
        case .dictionary(let values):
            try withContainer(in: &iterator, type: TypeCode.array, signature: "{sv}", what: "dictionary") {
                array throws(DBusClientError) in
                for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                    try withContainer(in: &array, type: TypeCode.dictEntry, signature: nil, what: "dictionary entry") {
                        entry throws(DBusClientError) in
                        try append(.string(key), to: &entry)
                        try withContainer(
                            in: &entry, type: TypeCode.variant, signature: value.signature, what: "variant"
                        ) {
                            variant throws(DBusClientError) in
                            try append(value, to: &variant)
                        }
                    }
                }
            }
        case .unsupported(let signature):
            throw .messageFailed("cannot send a value of type \(signature)")
        }
        guard ok != 0 else { throw .messageFailed("out of memory") }
    }

    /// Opens a container in `iterator`, fills it with `body` and closes it. When `body` throws, the
    /// container is abandoned: libdbus frees the signature it allocated for the open container
    /// (left open, it leaked with every refused argument).
    private static func withContainer(
        in iterator: inout DBusMessageIter, type: Int32, signature: String?, what: String,
        _ body: (inout DBusMessageIter) throws(DBusClientError) -> Void
    ) throws(DBusClientError) {
        var container = DBusMessageIter()
        guard dbus_message_iter_open_container(&iterator, type, signature, &container) != 0 else {
            throw .messageFailed(what)
        }
        do {
            try body(&container)
        } catch {
            dbus_message_iter_abandon_container(&iterator, &container)
            throw error
        }
        guard dbus_message_iter_close_container(&iterator, &container) != 0 else { throw .messageFailed(what) }
    }

    /// The arguments of `message`.
    static func read(_ message: OpaquePointer) -> [DBusArgument] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        return readAll(&iterator)
    }

    private static func readAll(_ iterator: inout DBusMessageIter) -> [DBusArgument] {
        var values: [DBusArgument] = []
        while dbus_message_iter_get_arg_type(&iterator) != TypeCode.invalid {
            values.append(readOne(&iterator))
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    private static func readOne(_ iterator: inout DBusMessageIter) -> DBusArgument {
        let type = dbus_message_iter_get_arg_type(&iterator)
        switch type {
        case TypeCode.string:
            var pointer: UnsafePointer<CChar>?
            dbus_message_iter_get_basic(&iterator, &pointer)
            return .string(pointer.map { String(cString: $0) } ?? "")
        case TypeCode.uint32:
            var value: UInt32 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .uint32(value)
        case TypeCode.int32:
            var value: Int32 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .int32(value)
        case TypeCode.boolean:
            var value: dbus_bool_t = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .boolean(value != 0)
        case TypeCode.byte:
            var value: UInt8 = 0
            dbus_message_iter_get_basic(&iterator, &value)
            return .byte(value)
        case TypeCode.variant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return readOne(&inner)
        case TypeCode.array:
            return readArray(&iterator)
        default:
            return .unsupported(signature(of: &iterator))
        }
    }

    private static func readArray(_ iterator: inout DBusMessageIter) -> DBusArgument {
        let element = dbus_message_iter_get_element_type(&iterator)
        var inner = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &inner)
        if element == TypeCode.string {
            return .stringArray(readAll(&inner).compactMap(\.stringValue))
        }
        guard element == TypeCode.dictEntry else { return .unsupported(signature(of: &iterator)) }
        var dictionary: [String: DBusArgument] = [:]
        while dbus_message_iter_get_arg_type(&inner) == TypeCode.dictEntry {
            var entry = DBusMessageIter()
            dbus_message_iter_recurse(&inner, &entry)
            let key = readOne(&entry)
            dbus_message_iter_next(&entry)
            if let key = key.stringValue {
                dictionary[key] = readOne(&entry)
            }
            dbus_message_iter_next(&inner)
        }
        return .dictionary(dictionary)
    }

    private static func signature(of iterator: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iterator) else { return "?" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }
}
