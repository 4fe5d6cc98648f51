/// The connection's status for `clawtalk status` and the journal.
public enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Not started yet.
    case disconnected
    /// Dialing or in the handshake (`attempt` counts since the last `hello-ok`, from 1).
    case connecting(attempt: Int)
    /// `hello-ok` received; the socket is live.
    case connected(HelloSummary)
    /// Between attempts: the next one starts after `retryIn`.
    case waiting(retryIn: Duration, cause: String)
    /// Not reconnecting until the user acts (or a pairing re-probe is due).
    case paused(PauseInfo)
    /// Stopped for good (`stop()`).
    case stopped

    /// True while connected.
    public var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    /// The pause details when paused.
    public var pause: PauseInfo? {
        if case .paused(let info) = self { return info }
        return nil
    }

    /// One line.
    public var description: String {
        switch self {
        case .disconnected: "disconnected"
        case .connecting(let attempt): "connecting (attempt \(attempt))"
        case .connected(let summary): summary.description
        case .waiting(let retryIn, let cause): "reconnecting in \(retryIn) after \(cause)"
        case .paused(let info): info.description
        case .stopped: "stopped"
        }
    }
}
