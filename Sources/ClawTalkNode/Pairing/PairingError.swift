/// Why pairing stopped, for the command line to report: `clawtalk pair`, a join URL and
/// `clawtalk discover --connect` all end in one of these. Every message says what was (not)
/// stored and what to do next.
public enum PairingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Input refused before anything was sent or stored: an invalid or expired setup code, a
    /// malformed URL or fingerprint, plaintext to a remote host (exit 64, no usage line).
    case invalidInput(String)
    /// The gateway or the join host does not answer (exit 69).
    case unavailable(String)
    /// The gateway answered and pairing did not happen: a pin mismatch, an untrusted or
    /// unconfirmed certificate, a refusal, no approval in time (exit 1).
    case failed(String)

    /// The message, as the command line prints it after `Error: `.
    public var description: String {
        switch self {
        case .invalidInput(let message), .unavailable(let message), .failed(let message): message
        }
    }
}

/// Where the pairing flows write: the result for the user (standard output) and progress and
/// questions (standard error).
public struct PairingConsole: Sendable {
    /// The result: the approval command, "paired with …".
    public var output: @Sendable (String) -> Void
    /// Progress and prompts.
    public var progress: @Sendable (String) -> Void

    /// A console from two writers (text includes its newlines).
    public init(output: @escaping @Sendable (String) -> Void, progress: @escaping @Sendable (String) -> Void) {
        self.output = output
        self.progress = progress
    }
}
