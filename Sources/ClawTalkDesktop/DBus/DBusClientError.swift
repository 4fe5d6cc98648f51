/// Why a D-Bus operation failed.
public enum DBusClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No session bus address (`DBUS_SESSION_BUS_ADDRESS` unset and no `$XDG_RUNTIME_DIR/bus`).
    case noSessionBus
    /// Connecting or registering with the bus failed.
    case connectFailed(address: String, message: String)
    /// The bus or the peer answered with an error (`name`, e.g.
    /// `org.freedesktop.DBus.Error.ServiceUnknown`).
    case callFailed(name: String, message: String)
    /// The message could not be built (out of memory, invalid string).
    case messageFailed(String)
    /// A well-known name could not be owned.
    case nameNotOwned(String)

    /// One line.
    public var description: String {
        switch self {
        case .noSessionBus:
            "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset and $XDG_RUNTIME_DIR/bus does not exist)"
        case .connectFailed(let address, let message):
            "cannot connect to the D-Bus bus at \(address): \(message)"
        case .callFailed(let name, let message):
            "D-Bus call failed (\(name)): \(message)"
        case .messageFailed(let what):
            "cannot build the D-Bus message: \(what)"
        case .nameNotOwned(let name):
            "cannot own the D-Bus name \(name) (another process has it)"
        }
    }
}
