/// The `hello-ok` payload of a successful `connect` (protocol.md §7.5), read leniently:
/// unknown keys are ignored, `snapshot` is kept raw, and only `protocol` and `policy` are
/// required. There is no `nodeId`: the node id is the deviceId.
public struct HelloOk: Sendable, Hashable, Encodable {
    /// The payload's `type` value.
    public static let type = "hello-ok"

    /// `protocol`: the server constant, not a negotiated value.
    public var protocolVersion: Int
    /// `server {version, connId}`.
    public var server: Server
    /// `features {methods, events, capabilities?}`.
    public var features: Features
    /// `snapshot`, raw.
    public var snapshot: WireJSON?
    /// `auth`; optional on old servers.
    public var auth: Auth?
    /// `policy {maxPayload, maxBufferedBytes, tickIntervalMs}`.
    public var policy: Policy

    /// A hello with the given parts.
    public init(
        protocolVersion: Int, server: Server, features: Features, snapshot: WireJSON? = nil, auth: Auth? = nil,
        policy: Policy
    ) {
        self.protocolVersion = protocolVersion
        self.server = server
        self.features = features
        self.snapshot = snapshot
        self.auth = auth
        self.policy = policy
    }

    /// Reads a `hello-ok` payload.
    /// - Throws: ``ProtocolError/invalidPayload(_:)`` when it is not an object, `type` is
    ///   present but not `hello-ok`, or `protocol`/`policy` are missing or malformed.
    public init(json: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "hello-ok")
        if let type = reader["type"], type.stringValue != Self.type {
            throw .invalidPayload("hello-ok: unexpected type")
        }
        let policy = try Policy(json: reader["policy"])
        self.init(
            protocolVersion: try reader.requiredInt("protocol"), server: Server(json: reader["server"]),
            features: Features(json: reader["features"]), snapshot: reader["snapshot"].nonNull,
            auth: reader["auth"].flatMap(Auth.init(json:)), policy: policy)
    }

    /// True when `method` is listed in `features.methods` (optional methods are called only
    /// then, protocol.md §14).
    public func supports(method: String) -> Bool {
        features.methods.contains(method)
    }

    private enum CodingKeys: String, CodingKey {
        case type, server, features, snapshot, auth, policy
        case protocolVersion = "protocol"
    }

    /// Encodes with `type:"hello-ok"` and `protocol` (for test gateways).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.type, forKey: .type)
        try container.encode(protocolVersion, forKey: .protocolVersion)
        try container.encode(server, forKey: .server)
        try container.encode(features, forKey: .features)
        try container.encodeIfPresent(snapshot, forKey: .snapshot)
        try container.encodeIfPresent(auth, forKey: .auth)
        try container.encode(policy, forKey: .policy)
    }
}
