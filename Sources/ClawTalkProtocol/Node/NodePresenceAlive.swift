/// `node.presence.alive` payload `{trigger, sentAtMs?}` (protocol.md §10.5).
public struct NodePresenceAlive: Sendable, Hashable, Codable {
    /// Why the ping was sent.
    public enum Trigger: String, Sendable, Hashable, Codable, CaseIterable {
        /// `background`.
        case background
        /// `silent_push`.
        case silentPush = "silent_push"
        /// `bg_app_refresh`.
        case backgroundAppRefresh = "bg_app_refresh"
        /// `significant_location`.
        case significantLocation = "significant_location"
        /// `manual`.
        case manual
        /// `connect`: sent after `hello-ok`.
        case connect
    }

    /// The trigger.
    public var trigger: Trigger
    /// Send time, milliseconds; omitted when nil.
    public var sentAtMs: Int64?

    /// A presence ping.
    public init(trigger: Trigger, sentAtMs: Int64? = nil) {
        self.trigger = trigger
        self.sentAtMs = sentAtMs
    }
}
