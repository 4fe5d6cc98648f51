public import ClawTalkCommand

extension PairingError: CLIErrorConvertible {
    /// The command line's view of a pairing failure: the same three outcomes and exit codes.
    public var cliError: CLIError {
        switch self {
        case .invalidInput(let message): .invalidInput(message)
        case .unavailable(let message): .unavailable(message)
        case .failed(let message): .failed(message)
        }
    }
}
