/// Everything the command line can reject, plus the runtime failures the CLI itself raises.
///
/// Usage errors (exit 64) carry the offending token's position: its index in the argument list
/// after the program name. Runtime cases exit 1 (`notAvailableYet`, `failed`) or 69 (`unavailable`);
/// `invalidInput` exits 64 like a usage error but without the usage line.
public enum CLIError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An option no spec of the command names, as typed (`--bogus`, `-x`).
    case unknownOption(String, position: Int)
    /// An option that takes a value came last or was followed by another option; `option` is its label.
    case missingValue(option: String, position: Int)
    /// A required positional argument or option was not given; the payload is its label (`<setup-code>`).
    case missingArgument(String)
    /// A positional value that no positional spec accepts.
    case unexpectedArgument(String, position: Int)
    /// A flag written with an attached value (`--local=yes`).
    case unexpectedValue(option: String, value: String, position: Int)
    /// A value that does not convert to the option's type or is not one of its allowed values.
    case invalidValue(option: String, value: String, reason: String, position: Int)
    /// A subcommand name the command does not know, with the closest known name if one is near.
    case unknownSubcommand(String, suggestion: String?)
    /// A command's own `validate()` rejected the combination of arguments.
    case validationFailed(String)
    /// The command exists but its implementation has not landed yet (runtime failure, exit 1);
    /// `issue` is the tracking issue number, if there is one.
    case notAvailableYet(command: String, issue: Int?)
    /// The gateway or an audio device cannot be reached (runtime failure, exit 69).
    case unavailable(String)
    /// Input the command checked and refused before doing anything, such as an expired setup
    /// code (exit 64, without the usage line: the command line itself was well-formed).
    case invalidInput(String)
    /// The command could not do what was asked; the message says why and what to do (exit 1).
    case failed(String)

    /// True for mistakes in the command line itself, which print the usage line and exit 64.
    public var isUsageError: Bool {
        switch self {
        case .notAvailableYet, .unavailable, .invalidInput, .failed: false
        default: true
        }
    }

    /// The process exit code this error maps to.
    public var exitCode: ExitCode {
        switch self {
        case .notAvailableYet, .failed: .failure
        case .unavailable: .unavailable
        default: .usage
        }
    }

    /// The index of the offending argument (after the program name), when one token is to blame.
    public var position: Int? {
        switch self {
        case .unknownOption(_, let position), .missingValue(_, let position),
            .unexpectedArgument(_, let position), .unexpectedValue(_, _, let position),
            .invalidValue(_, _, _, let position):
            position
        case .missingArgument, .unknownSubcommand, .validationFailed, .notAvailableYet, .unavailable,
            .invalidInput, .failed:
            nil
        }
    }

    /// One line, in swift-argument-parser's wording where it has one.
    public var description: String {
        switch self {
        case .unknownOption(let option, _):
            "Unknown option '\(option)'"
        case .missingValue(let option, _):
            "Missing value for '\(option)'"
        case .missingArgument(let label):
            "Missing expected argument '\(label)'"
        case .unexpectedArgument(let value, _):
            "Unexpected argument '\(value)'"
        case .unexpectedValue(let option, let value, _):
            "Unexpected value '\(value)' for '\(option)'"
        case .invalidValue(let option, let value, let reason, _):
            "The value '\(value)' is invalid for '\(option)': \(reason)"
        case .unknownSubcommand(let name, let suggestion):
            if let suggestion {
                "Unknown subcommand '\(name)'. Did you mean '\(suggestion)'?"
            } else {
                "Unknown subcommand '\(name)'"
            }
        case .validationFailed(let message):
            message
        case .notAvailableYet(let command, let issue?):
            "'\(command)' is not available yet (tracked in issue #\(issue))."
        case .notAvailableYet(let command, nil):
            "'\(command)' is not available yet."
        case .unavailable(let message), .invalidInput(let message), .failed(let message):
            message
        }
    }
}
