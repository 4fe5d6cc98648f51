// libFuzzer harness for reading D-Bus arguments: a received message's bytes are turned into a
// message by libdbus (dbus_message_demarshal, which validates the wire format as the bus
// connection does), then read by the project's own code, DBusIncomingCall.init(message:)
// (Sources/ClawTalkDesktop/DBus/DBusIncomingCall.swift) and DBusMessageCoding.read
// (DBusMessageCoding.swift), which turns the arguments into DBusArgument values. The desktop
// module's other files (the bus connection, Avahi, notifications) are not needed and not built.
//
// Input: one option byte (unused, kept for the corpus format of the other targets), then one
// marshalled message. Checks besides traps and sanitizer findings: arguments read without an
// unsupported type are appended to a new message (DBusMessageCoding.append) and read back to the
// same values; a value the reader does not support is refused by the writer with its typed error.
internal import CDBus

/// libFuzzer's entry point: runs one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    var error = DBusError()
    dbus_error_init(&error)
    defer { dbus_error_free(&error) }
    let message = UnsafeRawPointer(data + 1).withMemoryRebound(to: CChar.self, capacity: size - 1) {
        dbus_message_demarshal($0, Int32(size - 1), &error)
    }
    guard let message else { return 0 }
    let call = DBusIncomingCall(message: message)  // takes the reference: unrefs in deinit
    let arguments = call.arguments
    withExtendedLifetime(call) {
        precondition(arguments == DBusMessageCoding.read(message), "reading twice differs")
    }

    guard let copy = dbus_message_new_signal("/fuzz", "org.clawtalk.Fuzz", "Arguments") else {
        fatalError("out of memory")
    }
    defer { dbus_message_unref(copy) }
    do {
        try DBusMessageCoding.append(arguments, to: copy)
    } catch {
        precondition(arguments.contains(where: unsupported), "supported arguments refused: \(error)")
        return 0
    }
    precondition(!arguments.contains(where: unsupported), "an unsupported value was written")
    precondition(DBusMessageCoding.read(copy) == arguments, "arguments changed on the way back")
    return 0
}

private func unsupported(_ argument: DBusArgument) -> Bool {
    switch argument {
    case .unsupported: true
    case .dictionary(let values): values.values.contains(where: unsupported)
    default: false
    }
}
