/// Failures of the test gateway's harness API (never sent on the wire).
public enum TestGatewayError: Error, Equatable, CustomStringConvertible {
    /// No pending (unexpired) pairing or capability request has this id.
    case unknownRequest(String)
    /// No connection has this id.
    case unknownConnection(Int)
    /// A ``TestGateway/waitForEvent(timeout:where:)`` deadline passed.
    case timedOut(String)
    /// The listener could not be started.
    case listenFailed(String)

    /// One line.
    public var description: String {
        switch self {
        case .unknownRequest(let id): "no pending request \(id)"
        case .unknownConnection(let id): "no connection \(id)"
        case .timedOut(let what): "timed out waiting for \(what)"
        case .listenFailed(let reason): "listen failed: \(reason)"
        }
    }
}
