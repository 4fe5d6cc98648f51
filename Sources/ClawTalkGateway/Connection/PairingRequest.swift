/// A pending device-pairing request the user has to approve on the gateway host
/// (protocol.md §8.2): status output and the journal show all of it.
public struct PairingRequest: Sendable, Hashable, CustomStringConvertible {
    /// The validated `details.requestId`, when the gateway sent one.
    public var requestId: String?
    /// This device's id.
    public var deviceId: String
    /// `details.reason` (`not-paired`, `role-upgrade`, …), raw.
    public var reason: String?
    /// The command to run on the gateway host, e.g. `openclaw devices approve r-9c1`.
    public var approvalCommand: String

    /// A request with the given values; without a request id the command lists requests.
    public init(requestId: String?, deviceId: String, reason: String?) {
        self.requestId = requestId
        self.deviceId = deviceId
        self.reason = reason
        self.approvalCommand = requestId.map { "openclaw devices approve \($0)" } ?? "openclaw devices list"
    }

    /// One line for logs and status.
    public var description: String {
        var text = "pairing required for device \(deviceId)"
        if let reason { text += " (\(reason))" }
        if let requestId { text += ", request \(requestId)" }
        return text + "; approve with: \(approvalCommand)"
    }
}
