public import ClawTalkProtocol

/// Failures of gateway requests and connections, with cases callers can switch on. One line,
/// no secrets.
public enum GatewayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No live socket (connecting, waiting, paused or stopped): requests fail at once.
    case notConnected
    /// The socket closed while the request was pending; it is never replayed.
    case closed(reason: String)
    /// The request was meant for an earlier socket (its epoch changed); it was not sent.
    case staleEpoch(expected: Int, current: Int)
    /// No response within the timeout.
    case timedOut(method: String)
    /// The gateway answered `ok:false`.
    case response(method: String, error: ErrorShape)
    /// The serialized request exceeds `policy.maxPayload` (or 64 KiB before `hello-ok`).
    case payloadTooLarge(bytes: Int, limit: Int)
    /// The request could not be encoded or sent.
    case transport(String)
    /// The method is not in `hello-ok.features.methods` (operator connection, protocol.md §14).
    case methodUnavailable(String)
    /// The method was refused with `FORBIDDEN`/`MISSING_SCOPE` earlier on this socket.
    case methodForbidden(method: String, missingScope: String?)
    /// The connection was stopped.
    case stopped

    /// One line.
    public var description: String {
        switch self {
        case .notConnected: "not connected to the gateway"
        case .closed(let reason): "gateway connection closed: \(reason)"
        case .staleEpoch(let expected, let current): "socket changed (epoch \(expected) → \(current)); not sent"
        case .timedOut(let method): "\(method) timed out"
        case .response(let method, let error): "\(method) failed: \(error)"
        case .payloadTooLarge(let bytes, let limit): "request of \(bytes) bytes exceeds the gateway limit of \(limit)"
        case .transport(let message): "gateway transport: \(message)"
        case .methodUnavailable(let method): "method_unavailable: \(method) is not offered by this gateway"
        case .methodForbidden(let method, let scope):
            "\(method) is forbidden on this connection" + (scope.map { " (missing scope \($0))" } ?? "")
        case .stopped: "gateway connection stopped"
        }
    }

    /// The gateway's error, for `.response`.
    public var errorShape: ErrorShape? {
        if case .response(_, let error) = self { return error }
        return nil
    }
}
