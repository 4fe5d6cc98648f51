public import ClawTalkProtocol

/// What one `connect` carried, reported to the ``ConnectionStateMachine`` when it is sent so
/// a rejection can be judged against it.
public struct ConnectAttempt: Sendable, Hashable {
    /// The credential sent.
    public var credential: CredentialKind
    /// Every credential that was available (for "retry with the next credential").
    public var available: Set<CredentialKind>
    /// The signature layout signed.
    public var signatureVersion: DeviceAuthVersion
    /// The operator client pair sent (nil on the node connection).
    public var clientPair: OperatorClientPair?
    /// Loopback, or `wss://` with a pin (protocol.md §17.1.5): device-token retries go only there.
    public var endpointTrusted: Bool

    /// An attempt with the given values.
    public init(
        credential: CredentialKind, available: Set<CredentialKind>, signatureVersion: DeviceAuthVersion,
        clientPair: OperatorClientPair? = nil, endpointTrusted: Bool
    ) {
        self.credential = credential
        self.available = available
        self.signatureVersion = signatureVersion
        self.clientPair = clientPair
        self.endpointTrusted = endpointTrusted
    }
}
