/// Failures of the WebSocket transport (libwebsockets underneath).
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL is not a usable `ws://` or `wss://` URL; the payload says why.
    case invalidURL(String)
    /// The TLS pin is not a SHA-256 fingerprint (64 hex digits after normalisation).
    case invalidPin
    /// The connection could not be established (refused, unresolvable, rejected upgrade,
    /// certificate not trusted by the system, ...); the payload is the one-line cause.
    case connectFailed(String)
    /// The server's leaf certificate does not have the pinned SHA-256 fingerprint.
    case tlsPinMismatch(expected: String, actual: String)
    /// The connection closed; `code` is the close code (nil when none was sent).
    case closed(code: Int?, reason: String)
    /// An inbound message exceeded the receive limit; the connection was closed with 1009.
    case messageTooLarge
    /// The socket is not open (not yet connected, or already closed).
    case notConnected
    /// The operation did not finish in time.
    case timedOut
    /// The loopback server could not listen; the payload is the one-line cause.
    case listenFailed(String)

    /// One line, no secrets.
    public var description: String {
        switch self {
        case .invalidURL(let why): "invalid WebSocket URL: \(why)"
        case .invalidPin: "invalid TLS pin: expected a SHA-256 fingerprint (64 hex digits)"
        case .connectFailed(let why): why
        case .tlsPinMismatch(let expected, let actual):
            "pin mismatch: expected \(expected), got \(actual.isEmpty ? "no certificate" : actual)"
        case .closed(let code, let reason):
            "connection closed (\(code.map(String.init) ?? "no code")\(reason.isEmpty ? "" : ": \(reason)"))"
        case .messageTooLarge: "message too large: closed with 1009"
        case .notConnected: "WebSocket is not connected"
        case .timedOut: "timed out"
        case .listenFailed(let why): why
        }
    }
}
