public import ClawTalkProtocol

extension ConnectionStateMachine {
    /// What happened to the connection. Each socket ends with exactly one terminal event
    /// (`rejected`, `closed`, `watchdogExpired`, `handshakeTimedOut`, `transportFailed`,
    /// `pinMismatch`, `protocolViolation`, `localFailure`).
    public enum Event: Sendable, Hashable {
        /// `run()` began.
        case start
        /// A `connect` was sent with these inputs.
        case attemptStarted(ConnectAttempt)
        /// `hello-ok` arrived: the socket is live.
        case helloOk(HelloOk)
        /// `connect` failed with this error (the close that follows is not reported).
        case rejected(ConnectRejection)
        /// The socket closed without a connect rejection (`code` nil when unknown).
        case closed(code: Int?, reason: String)
        /// `shutdown {restartExpectedMs?}` arrived; the 1012 close follows.
        case shutdownAnnounced(restartExpectedMs: Int?)
        /// No inbound frame for more than 2 × `tickIntervalMs`; the socket was closed with 4000.
        case watchdogExpired
        /// No `connect.challenge` or no `hello-ok` in time.
        case handshakeTimedOut(String)
        /// The dial failed or the socket broke without a close frame.
        case transportFailed(String)
        /// The TLS leaf did not match the pin (normal backoff, protocol.md §17.1.2).
        case pinMismatch(String)
        /// The gateway sent something unusable during the handshake (e.g. a malformed `hello-ok`).
        case protocolViolation(String)
        /// A local condition that retrying cannot fix (insecure transport, oversized connect).
        case localFailure(PauseInfo)
        /// The pairing re-probe timer of a pause elapsed.
        case reprobeDue
        /// The user asked to reconnect (new setup code, config reload, `SIGHUP`, command).
        case userResumed
        /// `stop()`: close with 1000 and end.
        case stopRequested
    }
}
