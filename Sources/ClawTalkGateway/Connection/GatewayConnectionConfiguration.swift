public import ClawTalkProtocol
public import ClawTalkSupport

/// Everything one ``GatewayConnection`` needs besides its collaborators.
public struct GatewayConnectionConfiguration: Sendable, Hashable {
    /// Where to connect (its ``GatewayEndpoint/gatewayKey`` keys the stored state).
    public var endpoint: GatewayEndpoint
    /// Node (with its surface) or operator.
    public var role: ConnectionRole
    /// `client` metadata.
    public var client: ClientMetadata
    /// Configured shared token (secret).
    public var sharedToken: String?
    /// Configured shared password (secret).
    public var password: String?
    /// Pin from the CLI or config; wins over the stored pin.
    public var configuredPin: TLSFingerprint?
    /// Break-glass: allow `ws://` to a non-local host (warns on each connect, protocol.md §17.2).
    public var allowInsecureRemote: Bool
    /// Client timeouts.
    public var timeouts: ConnectionTimeouts
    /// Reconnect delays.
    public var backoff: Backoff.Configuration
    /// Pairing re-probe period while paused on `PAIRING_REQUIRED` (60 s).
    public var pairingReprobeInterval: Duration
    /// Most pairing re-probes per pause (30).
    public var pairingReprobeLimit: Int

    /// A configuration; defaults follow the spec.
    public init(
        endpoint: GatewayEndpoint, role: ConnectionRole, client: ClientMetadata, sharedToken: String? = nil,
        password: String? = nil, configuredPin: TLSFingerprint? = nil, allowInsecureRemote: Bool = false,
        timeouts: ConnectionTimeouts = ConnectionTimeouts(), backoff: Backoff.Configuration = Backoff.Configuration(),
        pairingReprobeInterval: Duration = .seconds(60), pairingReprobeLimit: Int = 30
    ) {
        self.endpoint = endpoint
        self.role = role
        self.client = client
        self.sharedToken = sharedToken
        self.password = password
        self.configuredPin = configuredPin
        self.allowInsecureRemote = allowInsecureRemote
        self.timeouts = timeouts
        self.backoff = backoff
        self.pairingReprobeInterval = pairingReprobeInterval
        self.pairingReprobeLimit = pairingReprobeLimit
    }
}

extension GatewayConnectionConfiguration {
    /// A configuration from the `gateway.*` settings: shared token/password, configured pin,
    /// `allowInsecureRemote` and timeouts. An invalid `tlsFingerprint` is ignored here (the
    /// config loader validates it).
    public init(settings: GatewaySettings, endpoint: GatewayEndpoint, role: ConnectionRole, client: ClientMetadata) {
        self.init(
            endpoint: endpoint, role: role, client: client, sharedToken: settings.token, password: settings.password,
            configuredPin: settings.tlsFingerprint.flatMap(TLSFingerprint.init),
            allowInsecureRemote: settings.allowInsecureRemote,
            timeouts: ConnectionTimeouts(settings: settings))
    }
}
