/// How to reach and authenticate to the OpenClaw Gateway (`gateway.*`).
public struct GatewaySettings: Sendable, Equatable {
    /// Gateway WebSocket URL (`ws://` or `wss://`). Default nil: use the paired gateway.
    public var url: String? = nil
    /// Shared gateway token (secret). Default nil.
    public var token: String? = nil
    /// Shared gateway password (secret). Default nil.
    public var password: String? = nil
    /// Expected SHA-256 of the gateway's leaf TLS certificate, 64 lowercase hex digits
    /// (normalized from `sha256:AB:CD…`). Default nil: system trust.
    public var tlsFingerprint: String? = nil
    /// Allow `ws://` to non-local hosts (break-glass; warns on each connect). Default false.
    public var allowInsecureRemote = false
    /// Name shown in the gateway's node list. Default nil: the host name at run time.
    public var displayName: String? = nil
    /// Wait for the `connect.challenge` event, in milliseconds. Default 10000.
    public var challengeTimeoutMs = 10000
    /// Whole connect handshake limit, in milliseconds. Default 30000.
    public var connectTimeoutMs = 30000
    /// Generic request timeout, in milliseconds. Default 15000.
    public var requestTimeoutMs = 15000
    /// The optional operator connection (`gateway.operator.*`).
    public var `operator` = OperatorSettings()

    /// Creates the defaults.
    public init() {}

    /// The display name to announce: ``displayName`` or else `hostName`.
    public func resolvedDisplayName(hostName: String) -> String { displayName ?? hostName }

    /// ``challengeTimeoutMs`` as a duration.
    public var challengeTimeout: Duration { .milliseconds(challengeTimeoutMs) }
    /// ``connectTimeoutMs`` as a duration.
    public var connectTimeout: Duration { .milliseconds(connectTimeoutMs) }
    /// ``requestTimeoutMs`` as a duration.
    public var requestTimeout: Duration { .milliseconds(requestTimeoutMs) }
}

/// The second, operator-role gateway connection (`gateway.operator.*`).
public struct OperatorSettings: Sendable, Equatable {
    /// Open the operator connection (talk.speak, chat.send, voicewake.*). Default true.
    public var enabled = true

    /// Creates the defaults.
    public init() {}
}
