/// `connect` params (closed, protocol.md §7.2). Only the listed keys exist; nil and
/// empty optionals are omitted. `pathEnv`, `client.buildId`, `client.timeZone` and
/// `transports` are never sent, so they have no property.
public struct ConnectParams: Sendable, Hashable, Codable {
    /// The request method.
    public static let method = "connect"

    /// Lowest protocol spoken (3).
    public var minProtocol: Int
    /// Highest protocol spoken (4).
    public var maxProtocol: Int
    /// Client metadata.
    public var client: ClientInfo
    /// Capability claims (node only).
    public var caps: [String]?
    /// Declared commands (node only).
    public var commands: [String]?
    /// Permission report (node only).
    public var permissions: [String: Bool]?
    /// Always sent.
    public var role: GatewayRole
    /// Requested scopes in signing order; `[]` for the node.
    public var scopes: [String]
    /// Device proof; always sent by clawtalk once signed.
    public var device: DeviceProof?
    /// The one credential; omitted when nil or empty.
    public var auth: ConnectAuth?
    /// BCP-47 locale.
    public var locale: String?
    /// `clawtalk/<version>`.
    public var userAgent: String?

    /// Params with the given values (see ``node(version:displayName:modelIdentifier:instanceId:caps:commands:permissions:auth:device:locale:)``
    /// and the `operator` builder for the two connections).
    public init(
        minProtocol: Int = ProtocolVersion.clientMinimum, maxProtocol: Int = ProtocolVersion.clientMaximum,
        client: ClientInfo, caps: [String]? = nil, commands: [String]? = nil, permissions: [String: Bool]? = nil,
        role: GatewayRole, scopes: [String], device: DeviceProof? = nil, auth: ConnectAuth? = nil,
        locale: String? = nil, userAgent: String? = nil
    ) {
        self.minProtocol = minProtocol
        self.maxProtocol = maxProtocol
        self.client = client
        self.caps = caps
        self.commands = commands
        self.permissions = permissions
        self.role = role
        self.scopes = scopes
        self.device = device
        self.auth = auth
        self.locale = locale
        self.userAgent = userAgent
    }

    /// Encodes the closed key set, omitting nil/empty optionals and an empty `auth`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(minProtocol, forKey: .minProtocol)
        try container.encode(maxProtocol, forKey: .maxProtocol)
        try container.encode(client, forKey: .client)
        try container.encodeIfPresent(caps, forKey: .caps)
        try container.encodeIfPresent(commands, forKey: .commands)
        try container.encodeIfPresent(permissions, forKey: .permissions)
        try container.encode(role, forKey: .role)
        try container.encode(scopes, forKey: .scopes)
        try container.encodeIfPresent(device, forKey: .device)
        if let auth, !auth.isEmpty { try container.encode(auth, forKey: .auth) }
        try container.encodeIfNonEmpty(locale, forKey: .locale)
        try container.encodeIfNonEmpty(userAgent, forKey: .userAgent)
    }

    /// The `connect` request frame.
    public func requestFrame(id: String = WireID.make()) throws(ProtocolError) -> RequestFrame {
        try RequestFrame(id: id, method: Self.method, encoding: self)
    }

    /// The serialized `connect` request, checked to be smaller than 64 KiB (protocol.md §4.2).
    /// - Throws: ``ProtocolError/frameTooLarge(bytes:limit:)`` when it is not.
    public func encodedRequest(id: String = WireID.make()) throws(ProtocolError) -> String {
        try requestFrame(id: id).encodedText(maxBytes: GatewayLimits.preauthMaxPayloadBytes - 1)
    }
}
