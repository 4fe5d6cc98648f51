/// One freedesktop notification: what clawtalk wants the user to see.
public struct DesktopNotification: Sendable, Hashable {
    /// How urgent (the `urgency` hint: 0 low, 1 normal, 2 critical).
    public enum Urgency: UInt8, Sendable, Hashable {
        /// Background information.
        case low = 0
        /// Ordinary.
        case normal = 1
        /// Needs attention (servers keep it until dismissed).
        case critical = 2
    }

    /// What the notification is about; repeated notifications of one kind replace each other.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A pairing request waits for approval on the gateway host.
        case pairing
        /// The wake word was heard.
        case wake
        /// Something failed.
        case error
    }

    /// The kind.
    public var kind: Kind
    /// Title line.
    public var summary: String
    /// Body text (plain; servers may render a little markup).
    public var body: String
    /// Urgency.
    public var urgency: Urgency
    /// Milliseconds until it expires; -1 lets the server decide.
    public var expireTimeoutMs: Int32

    /// A notification.
    public init(kind: Kind, summary: String, body: String, urgency: Urgency = .normal, expireTimeoutMs: Int32 = -1) {
        self.kind = kind
        self.summary = summary
        self.body = body
        self.urgency = urgency
        self.expireTimeoutMs = expireTimeoutMs
    }

    /// A pending pairing request, with the command that approves it.
    public static func pairingRequired(requestId: String?, approvalCommand: String) -> DesktopNotification {
        DesktopNotification(
            kind: .pairing, summary: "clawtalk: pairing request \(requestId ?? "") waiting",
            body: "Approve it on the gateway host with: \(approvalCommand)", urgency: .critical)
    }

    /// The wake word was heard (the seam voice wake calls).
    public static func wake(trigger: String) -> DesktopNotification {
        DesktopNotification(
            kind: .wake, summary: "clawtalk is listening", body: "Heard \"\(trigger)\"", urgency: .low,
            expireTimeoutMs: 3000)
    }

    /// A failure the user should know about (one line, no secrets).
    public static func error(_ message: String) -> DesktopNotification {
        DesktopNotification(kind: .error, summary: "clawtalk: error", body: message, urgency: .normal)
    }
}
