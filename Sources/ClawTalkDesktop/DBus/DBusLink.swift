internal import CDBus
import Foundation

/// One private libdbus connection to a message bus: method calls out, and (for peers such as a
/// test notification server) owned names, incoming calls and replies. Blocking calls with a
/// timeout; one thread at a time (the owner serializes use). Closed and released in deinit.
public final class DBusLink {
    private let connection: OpaquePointer
    /// The address connected to.
    public let address: String
    /// The unique name the bus gave this connection (`:1.42`).
    public let uniqueName: String

    /// libdbus's thread support, switched on once per process before any connection.
    private static let threadsReady: Bool = dbus_threads_init_default() != 0

    /// Connects to the bus at `address` (`unix:path=…`) and registers with it.
    /// - Throws: ``DBusClientError/connectFailed(address:message:)``.
    public init(address: String) throws(DBusClientError) {
        _ = Self.threadsReady
        var error = DBusError()
        dbus_error_init(&error)
        guard let connection = dbus_connection_open_private(address, &error) else {
            throw .connectFailed(address: address, message: Self.take(&error))
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        guard dbus_bus_register(connection, &error) != 0 else {
            let message = Self.take(&error)
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw .connectFailed(address: address, message: message)
        }
        self.connection = connection
        self.address = address
        uniqueName = dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
    }

    /// The session bus address of `environment`: `DBUS_SESSION_BUS_ADDRESS`, else
    /// `unix:path=$XDG_RUNTIME_DIR/bus` when that socket exists.
    public static func sessionBusAddress(environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = environment["XDG_RUNTIME_DIR"], FileManager.default.fileExists(atPath: runtime + "/bus") {
            return "unix:path=\(runtime)/bus"
        }
        return nil
    }

    deinit {
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// Calls `interface.member` on `path` of `destination` and waits up to `timeoutMs` for the
    /// reply's arguments.
    /// - Throws: ``DBusClientError/callFailed(name:message:)`` for an error reply or timeout.
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [DBusArgument],
        timeoutMs: Int32 = 2000
    ) throws(DBusClientError) -> [DBusArgument] {
        guard let message = dbus_message_new_method_call(destination, path, interface, member) else {
            throw .messageFailed("invalid destination, path, interface or member")
        }
        defer { dbus_message_unref(message) }
        try DBusMessageCoding.append(arguments, to: message)
        var error = DBusError()
        dbus_error_init(&error)
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message, timeoutMs, &error) else {
            let name = error.name.map { String(cString: $0) } ?? "unknown"
            throw .callFailed(name: name, message: Self.take(&error))
        }
        defer { dbus_message_unref(reply) }
        return DBusMessageCoding.read(reply)
    }

    /// Whether a connection owns `name` on the bus.
    public func hasOwner(_ name: String) -> Bool {
        var error = DBusError()
        dbus_error_init(&error)
        let owned = dbus_bus_name_has_owner(connection, name, &error) != 0
        _ = Self.take(&error)
        return owned
    }

    /// Owns the well-known `name` (no queueing).
    /// - Throws: ``DBusClientError/nameNotOwned(_:)``.
    public func requestName(_ name: String) throws(DBusClientError) {
        var error = DBusError()
        dbus_error_init(&error)
        let primaryOwner: Int32 = 1  // DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
        let doNotQueue: UInt32 = 4  // DBUS_NAME_FLAG_DO_NOT_QUEUE
        let result = dbus_bus_request_name(connection, name, doNotQueue, &error)
        _ = Self.take(&error)
        guard result == primaryOwner else { throw .nameNotOwned(name) }
    }

    /// The next method call addressed to this connection, waiting up to `timeoutMs`; signals
    /// and other messages are dropped. Nil on timeout or a closed connection.
    public func nextMethodCall(timeoutMs: Int32) -> DBusIncomingCall? {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeoutMs))
        while true {
            while let message = dbus_connection_pop_message(connection) {
                if dbus_message_get_type(message) == 1 {  // DBUS_MESSAGE_TYPE_METHOD_CALL
                    return DBusIncomingCall(message: message)
                }
                dbus_message_unref(message)
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            let milliseconds = max(
                1, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard dbus_connection_read_write(connection, milliseconds) != 0 else { return nil }
        }
    }

    /// Answers `call` with `arguments`.
    public func reply(to call: DBusIncomingCall, with arguments: [DBusArgument]) throws(DBusClientError) {
        guard let reply = dbus_message_new_method_return(call.message) else { throw .messageFailed("reply") }
        defer { dbus_message_unref(reply) }
        try DBusMessageCoding.append(arguments, to: reply)
        dbus_connection_send(connection, reply, nil)
        dbus_connection_flush(connection)
    }

    /// Answers `call` with the error `name`.
    public func replyError(to call: DBusIncomingCall, name: String, message text: String) throws(DBusClientError) {
        guard let reply = dbus_message_new_error(call.message, name, text) else { throw .messageFailed("error") }
        defer { dbus_message_unref(reply) }
        dbus_connection_send(connection, reply, nil)
        dbus_connection_flush(connection)
    }

    /// The message of a set error, freeing it.
    private static func take(_ error: inout DBusError) -> String {
        guard dbus_error_is_set(&error) != 0 else { return "unknown error" }
        let message = error.message.map { String(cString: $0) } ?? "unknown error"
        dbus_error_free(&error)
        return message
    }
}
