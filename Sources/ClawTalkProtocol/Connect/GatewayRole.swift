/// `role` of a connection. clawtalk always sends it (omitted means operator).
public enum GatewayRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// The node connection.
    case node
    /// The optional operator connection (protocol.md §14).
    case `operator`
}
