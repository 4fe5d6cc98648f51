/// Top-level `error.code` values of Gateway responses (protocol.md §3). Unknown codes
/// stay available as ``ErrorShape/code``.
public enum GatewayErrorCode: String, Sendable, Hashable, CaseIterable {
    /// `NOT_LINKED`.
    case notLinked = "NOT_LINKED"
    /// `NOT_PAIRED`: device pairing required or identity missing.
    case notPaired = "NOT_PAIRED"
    /// `AGENT_TIMEOUT`.
    case agentTimeout = "AGENT_TIMEOUT"
    /// `AGENT_RESULT_NOT_FOUND`.
    case agentResultNotFound = "AGENT_RESULT_NOT_FOUND"
    /// `INVALID_REQUEST`: bad params, handshake, auth or device proof.
    case invalidRequest = "INVALID_REQUEST"
    /// `FORBIDDEN`, e.g. a missing scope.
    case forbidden = "FORBIDDEN"
    /// `APPROVAL_NOT_FOUND`.
    case approvalNotFound = "APPROVAL_NOT_FOUND"
    /// `UNAVAILABLE`: starting up, method unavailable, provider failure.
    case unavailable = "UNAVAILABLE"
}
