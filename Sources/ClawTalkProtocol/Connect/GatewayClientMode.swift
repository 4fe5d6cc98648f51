/// `client.mode` values the Gateway accepts (`GATEWAY_CLIENT_MODES`, protocol.md §7.3).
public enum GatewayClientMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// `webchat`.
    case webchat
    /// `cli`.
    case cli
    /// `ui`.
    case ui
    /// `backend`: the operator connection's default mode.
    case backend
    /// `node`: the node connection's mode.
    case node
    /// `worker`.
    case worker
    /// `probe`.
    case probe
    /// `test`.
    case test
}
