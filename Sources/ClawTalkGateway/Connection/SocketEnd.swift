internal import ClawTalkProtocol

/// How one socket ended, as seen by the actor; becomes the machine's terminal event.
enum SocketEnd: Sendable {
    case rejected(ConnectRejection)
    case closed(code: Int?, reason: String)
    case failed(String)
    case pinMismatch(String)
    case watchdog
    case handshakeTimeout(String)
    case protocolViolation(String)
    case localFailure(PauseInfo)
    case cancelled

    /// The machine event.
    var event: ConnectionStateMachine.Event {
        switch self {
        case .rejected(let rejection): .rejected(rejection)
        case .closed(let code, let reason): .closed(code: code, reason: reason)
        case .failed(let message): .transportFailed(message)
        case .pinMismatch(let message): .pinMismatch(message)
        case .watchdog: .watchdogExpired
        case .handshakeTimeout(let message): .handshakeTimedOut(message)
        case .protocolViolation(let message): .protocolViolation(message)
        case .localFailure(let info): .localFailure(info)
        case .cancelled: .closed(code: nil, reason: "cancelled")
        }
    }

    /// Short reason for logs and `disconnected` events.
    var reason: String {
        switch self {
        case .rejected(let rejection): rejection.description
        case .closed(let code, let reason): "closed (\(code.map(String.init) ?? "no code")) \(reason)"
        case .failed(let message): message
        case .pinMismatch(let message): "TLS pin mismatch: \(message)"
        case .watchdog: "tick watchdog"
        case .handshakeTimeout(let message), .protocolViolation(let message): message
        case .localFailure(let info): info.description
        case .cancelled: "cancelled"
        }
    }
}
