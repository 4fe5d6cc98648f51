internal import ClawTalkSupport

/// Why per-gateway state could not be read or written. Never carries tokens.
public enum GatewayStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The state directory refused the operation (permissions, I/O, owner).
    case stateDirectory(String)
    /// A stored file is not the expected JSON.
    case malformed(file: String, reason: String)
    /// `use(_:)` named a gateway key that was never registered.
    case unknownGateway(String)
    /// A data-file suffix that is empty or not `[a-z0-9.-]`.
    case invalidSuffix(String)

    /// One line.
    public var description: String {
        switch self {
        case .stateDirectory(let message): "gateway state: \(message)"
        case .malformed(let file, let reason): "gateway state file \(file) is malformed: \(reason)"
        case .unknownGateway(let key): "unknown gateway \(key) (see clawtalk gateways)"
        case .invalidSuffix(let suffix): "invalid gateway data file suffix \"\(suffix)\""
        }
    }

    init(_ error: StateDirectoryError) {
        self = .stateDirectory(error.description)
    }
}
