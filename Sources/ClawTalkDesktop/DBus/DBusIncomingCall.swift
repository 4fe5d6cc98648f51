internal import CDBus

/// A method call received by a ``DBusLink`` (holds a reference to the message until replied).
public final class DBusIncomingCall {
    let message: OpaquePointer
    /// Sender's unique name.
    public let sender: String
    /// Object path.
    public let path: String
    /// Interface.
    public let interface: String
    /// Method name.
    public let member: String
    /// Arguments.
    public let arguments: [DBusArgument]

    init(message: OpaquePointer) {
        self.message = message
        sender = dbus_message_get_sender(message).map { String(cString: $0) } ?? ""
        path = dbus_message_get_path(message).map { String(cString: $0) } ?? ""
        interface = dbus_message_get_interface(message).map { String(cString: $0) } ?? ""
        member = dbus_message_get_member(message).map { String(cString: $0) } ?? ""
        arguments = DBusMessageCoding.read(message)
    }

    deinit {
        dbus_message_unref(message)
    }
}
