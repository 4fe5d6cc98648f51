/// Failures of the local control socket (server and client).
public enum ControlSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path does not fit a Unix socket address (107 bytes).
    case pathTooLong(String)
    /// The socket's directory cannot be made private.
    case directory(path: String, message: String)
    /// Another service already answers on the path.
    case alreadyServing(String)
    /// Something that is not a socket sits at the path.
    case notASocket(String)
    /// Nothing listens on the path (client).
    case notRunning(String)
    /// A system call failed; `message` is the system's text.
    case system(operation: String, message: String)
    /// No (complete) answer before the deadline (client).
    case timedOut
    /// The answer was not a response line (client).
    case badAnswer

    /// One line.
    public var description: String {
        switch self {
        case .pathTooLong(let path): "control socket path is too long for a Unix socket: \(path)"
        case .directory(let path, let message): "control socket directory \(path): \(message)"
        case .alreadyServing(let path): "another clawtalk service already listens on \(path)"
        case .notASocket(let path): "\(path) exists and is not a socket; remove it or set ptt.controlSocket"
        case .notRunning(let path): "no clawtalk service is listening on \(path): is 'clawtalk run' running?"
        case .system(let operation, let message): "control socket \(operation): \(message)"
        case .timedOut: "the clawtalk service did not answer in time"
        case .badAnswer: "the clawtalk service sent an answer this version does not understand"
        }
    }
}
