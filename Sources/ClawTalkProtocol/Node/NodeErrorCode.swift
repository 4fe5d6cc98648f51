/// `error.code` values used by official nodes in `node.invoke.result` (protocol.md
/// §10.3). clawtalk emits ``invalidRequest``, ``unavailable`` and ``nodeNotReady``.
public enum NodeErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
    /// `NOT_PAIRED`.
    case notPaired = "NOT_PAIRED"
    /// `UNAUTHORIZED`.
    case unauthorized = "UNAUTHORIZED"
    /// `NODE_BACKGROUND_UNAVAILABLE`.
    case nodeBackgroundUnavailable = "NODE_BACKGROUND_UNAVAILABLE"
    /// `INVALID_REQUEST`: bad params or undeclared command.
    case invalidRequest = "INVALID_REQUEST"
    /// `UNAVAILABLE`: busy, timed out, microphone/STT problems, cancelled start.
    case unavailable = "UNAVAILABLE"
    /// `NODE_NOT_READY`: before any handler work; the Gateway retries.
    case nodeNotReady = "NODE_NOT_READY"
    /// `SYSTEM_RUN_DENIED`.
    case systemRunDenied = "SYSTEM_RUN_DENIED"
}
