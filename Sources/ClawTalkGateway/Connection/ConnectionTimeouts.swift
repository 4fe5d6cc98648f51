public import ClawTalkSupport

/// Client timeouts (protocol.md §4.3), configurable.
public struct ConnectionTimeouts: Sendable, Hashable {
    /// Wait for `connect.challenge` after the socket opens (10 s).
    public var challenge: Duration
    /// Whole connect: socket open to `hello-ok`, and the dial itself (30 s).
    public var connect: Duration
    /// Generic request timeout (15 s).
    public var request: Duration

    /// Timeouts with the spec defaults.
    public init(challenge: Duration = .seconds(10), connect: Duration = .seconds(30), request: Duration = .seconds(15))
    {
        self.challenge = challenge
        self.connect = connect
        self.request = request
    }

    /// Timeouts from `gateway.*` settings.
    public init(settings: GatewaySettings) {
        self.init(
            challenge: settings.challengeTimeout, connect: settings.connectTimeout, request: settings.requestTimeout)
    }
}
