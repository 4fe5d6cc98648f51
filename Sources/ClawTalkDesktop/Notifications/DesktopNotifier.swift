public import ClawTalkSupport

/// Sends ``DesktopNotification``s to the freedesktop notification server
/// (`org.freedesktop.Notifications` on the session bus) when `notify.enabled`; otherwise does
/// nothing. Notifications of one kind replace the previous one (`replaces_id`). Failures (no
/// session bus, no notification server) are logged once a minute and never thrown: the node
/// works without a desktop. The bus connection is opened on first use and reopened after an
/// error.
public actor DesktopNotifier {
    /// The freedesktop notification service name, object path and interface.
    public static let service = "org.freedesktop.Notifications"
    /// Object path of the service.
    public static let objectPath = "/org/freedesktop/Notifications"

    /// Whether notifications are sent at all.
    public nonisolated let enabled: Bool
    private let busAddress: String?
    private let logger: Logger
    private let appName: String
    private var link: DBusLink?
    private var lastIds: [DesktopNotification.Kind: UInt32] = [:]

    /// A notifier; `busAddress` nil uses the session bus of `environment`.
    public init(
        enabled: Bool, environment: [String: String], busAddress: String? = nil, logger: Logger,
        appName: String = "clawtalk"
    ) {
        self.enabled = enabled
        self.busAddress = busAddress ?? DBusLink.sessionBusAddress(environment: environment)
        self.logger = logger.child(category: "notify")
        self.appName = appName
    }

    /// Shows `notification` (when enabled); never throws.
    public func notify(_ notification: DesktopNotification) {
        guard enabled else { return }
        do {
            _ = try send(notification)
        } catch {
            link = nil
            logger.throttled(key: "notify.failed", every: .seconds(60))
                .warning("notify.failed", ["kind": .string(notification.kind.rawValue), "error": .string("\(error)")])
        }
    }

    /// Sends `notification` regardless of ``enabled``; returns the server's notification id.
    /// - Throws: ``DBusClientError``.
    @discardableResult
    public func send(_ notification: DesktopNotification) throws(DBusClientError) -> UInt32 {
        let link = try connect()
        let reply = try link.call(
            destination: Self.service, path: Self.objectPath, interface: Self.service, member: "Notify",
            arguments: [
                .string(appName), .uint32(lastIds[notification.kind] ?? 0), .string("audio-input-microphone"),
                .string(notification.summary), .string(notification.body), .stringArray([]),
                .dictionary([
                    "urgency": .byte(notification.urgency.rawValue),
                    "category": .string(notification.kind == .error ? "device.error" : "device"),
                    "desktop-entry": .string("clawtalk"),
                ]),
                .int32(notification.expireTimeoutMs),
            ],
            timeoutMs: 1000)
        guard let id = reply.first?.uint32Value else {
            throw .callFailed(name: "org.freedesktop.DBus.Error.InvalidSignature", message: "Notify returned \(reply)")
        }
        lastIds[notification.kind] = id
        return id
    }

    private func connect() throws(DBusClientError) -> DBusLink {
        if let link { return link }
        guard let busAddress else { throw .noSessionBus }
        let opened = try DBusLink(address: busAddress)
        link = opened
        return opened
    }
}
