/// `client.id` values the Gateway accepts (`GATEWAY_CLIENT_IDS`, protocol.md §7.3);
/// validation is exact and case-sensitive.
public enum GatewayClientID: String, Sendable, Hashable, Codable, CaseIterable {
    /// `webchat-ui`.
    case webchatUI = "webchat-ui"
    /// `openclaw-control-ui`.
    case controlUI = "openclaw-control-ui"
    /// `openclaw-browser-copilot`.
    case browserCopilot = "openclaw-browser-copilot"
    /// `openclaw-tui`.
    case tui = "openclaw-tui"
    /// `webchat`.
    case webchat
    /// `cli`: the operator connection's fallback id.
    case cli
    /// `gateway-client`: the operator connection's default id.
    case gatewayClient = "gateway-client"
    /// `openclaw-macos`.
    case macOS = "openclaw-macos"
    /// `openclaw-linux` (newest gateways only).
    case linux = "openclaw-linux"
    /// `openclaw-ios`.
    case iOS = "openclaw-ios"
    /// `openclaw-watchos`.
    case watchOS = "openclaw-watchos"
    /// `openclaw-android`.
    case android = "openclaw-android"
    /// `node-host`: the node connection's id (known to every gateway version).
    case nodeHost = "node-host"
    /// `openclaw-worker`.
    case worker = "openclaw-worker"
    /// `test`.
    case test
    /// `fingerprint`.
    case fingerprint
    /// `openclaw-probe`.
    case probe = "openclaw-probe"
}
