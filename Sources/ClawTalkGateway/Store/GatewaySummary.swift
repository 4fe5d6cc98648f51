/// One known gateway, for `clawtalk gateways` (no secrets).
public struct GatewaySummary: Sendable, Hashable {
    /// Gateway key: lowercase `host:port` + context path.
    public var key: String
    /// The URL to show, when registered with one.
    public var url: String?
    /// The one in use.
    public var isCurrent: Bool
    /// Roles with a stored device token.
    public var tokenRoles: [String]
    /// Where the TLS pin came from, when there is one.
    public var pinSource: PinSource?
}
