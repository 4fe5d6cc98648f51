/// Why a connection stopped reconnecting and what the user should do (protocol.md §15):
/// the process keeps running and resumes on user action (new setup code, config reload,
/// `SIGHUP`, explicit reconnect).
public struct PauseInfo: Sendable, Hashable, CustomStringConvertible {
    /// The decisive code: `details.code` (e.g. `PAIRING_REQUIRED`), the top-level code, or a
    /// local reason such as `FRAME_TOO_LARGE` / `INSECURE_TRANSPORT`.
    public var code: String
    /// The gateway's or the local message, one line.
    public var message: String
    /// What the user should do next, one line.
    public var nextStep: String
    /// The pairing request, when pausing on `PAIRING_REQUIRED`.
    public var pairing: PairingRequest?

    /// A pause with the given values.
    public init(code: String, message: String, nextStep: String, pairing: PairingRequest? = nil) {
        self.code = code
        self.message = message
        self.nextStep = nextStep
        self.pairing = pairing
    }

    /// The pairing request id, if any.
    public var requestId: String? { pairing?.requestId }

    /// `paused (<code>): <message>; next: <step>`.
    public var description: String {
        "paused (\(code)): \(message); next: \(nextStep)"
    }
}
