public import ClawTalkProtocol

/// What `clawtalk status` shows about a live connection (from `hello-ok`, protocol.md §7.5).
public struct HelloSummary: Sendable, Hashable, CustomStringConvertible {
    /// `hello-ok.protocol`.
    public var protocolVersion: Int
    /// `server.version`.
    public var serverVersion: String
    /// `server.connId`.
    public var connId: String
    /// Role admitted (`auth.role`, else the requested role).
    public var role: String
    /// Granted scopes (`auth.scopes`).
    public var scopes: [String]
    /// `policy.tickIntervalMs`.
    public var tickIntervalMs: Int
    /// `policy.maxPayload`.
    public var maxPayload: Int
    /// Number of callable methods advertised.
    public var methodCount: Int

    /// The summary of `hello` for a connection requesting `role`.
    public init(_ hello: HelloOk, requestedRole: GatewayRole) {
        protocolVersion = hello.protocolVersion
        serverVersion = hello.server.version
        connId = hello.server.connId
        role = hello.auth?.role ?? requestedRole.rawValue
        scopes = hello.auth?.scopes ?? []
        tickIntervalMs = hello.policy.tickIntervalMs
        maxPayload = hello.policy.maxPayload
        methodCount = hello.features.methods.count
    }

    /// One line.
    public var description: String {
        "connected as \(role) (protocol \(protocolVersion), gateway \(serverVersion.isEmpty ? "?" : serverVersion))"
    }
}
