public import ClawTalkCommand

extension NodeServiceError: CLIErrorConvertible {
    /// The command line's view of the node's error: a configuration it cannot use is a failed
    /// validation (exit 64), something missing is unavailable (exit 69).
    public var cliError: CLIError {
        switch self {
        case .invalidConfiguration(let message): .validationFailed(message)
        case .unavailable(let message): .unavailable(message)
        }
    }
}
