/// What composing or running the node can fail with, for the command line to report (a usage
/// error or exit 69).
public enum NodeServiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The settings cannot work: an unreadable configuration, an invalid `gateway.url`.
    case invalidConfiguration(String)
    /// Something the node needs does not answer or is not there: a Wyoming server, a status file.
    case unavailable(String)

    /// The message, as the command line prints it after `Error: `.
    public var description: String {
        switch self {
        case .invalidConfiguration(let message), .unavailable(let message): message
        }
    }
}
