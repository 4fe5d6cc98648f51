public import ClawTalkGateway
import ClawTalkProtocol

/// An established connection as the gateway admitted it; read it with
/// ``TestGateway/session(connection:)``.
public struct TestGatewaySession: Sendable, Equatable {
    /// How the connect authenticated.
    public enum AuthMethod: String, Sendable, Equatable {
        /// Auth mode `none`.
        case none
        /// Shared token.
        case token
        /// Shared password.
        case password
        /// A device token for (deviceId, role).
        case deviceToken = "device-token"
        /// A bootstrap (setup-code) token.
        case bootstrapToken = "bootstrap-token"
    }

    /// Connection id.
    public internal(set) var connection: Int
    /// `role`.
    public internal(set) var role: String
    /// deviceId (= nodeId for nodes).
    public internal(set) var deviceId: String
    /// `client.id`.
    public internal(set) var clientId: String
    /// `client.mode`.
    public internal(set) var clientMode: String
    /// `client.platform` as sent.
    public internal(set) var platform: String
    /// `client.deviceFamily` as sent.
    public internal(set) var deviceFamily: String?
    /// Granted scopes.
    public internal(set) var scopes: [String]
    /// Declared caps.
    public internal(set) var caps: [String]
    /// Declared commands.
    public internal(set) var declaredCommands: [String]
    /// Commands invokes may use: declared ∩ approved ∩ allowlisted (protocol.md §13).
    public internal(set) var effectiveCommands: Set<String>
    /// `minProtocol`…`maxProtocol` as sent.
    public internal(set) var protocolRange: ClosedRange<Int64>
    /// The signature layout that verified.
    public internal(set) var signatureVersion: DeviceAuthVersion
    /// How the connect authenticated.
    public internal(set) var authMethod: AuthMethod
    /// The device token issued in `hello-ok`.
    public internal(set) var deviceToken: String
    /// Chat sessions the node subscribed to with `chat.subscribe`.
    public internal(set) var chatSubscriptions: Set<String> = []
    /// The last `node.presence.alive` trigger, normalized.
    public internal(set) var lastPresenceTrigger: String?

    /// The node id (the deviceId).
    public var nodeId: String { deviceId }
    /// True for `role:"node"`.
    public var isNode: Bool { role == GatewayRole.node.rawValue }
}

/// Per-link state.
struct GatewayConnection {
    enum Phase: Equatable {
        case handshaking
        case established
        case closed
    }

    let id: Int
    let link: any TestGatewayLink
    let nonce: String
    let challengeTs: Int64
    var phase: Phase = .handshaking
    var session: TestGatewaySession?
    var seq = 0
    var stalled = false
    var tickTask: Task<Void, Never>?
}

/// A paired device: its key, approved roles and scopes, and pinned metadata.
struct PairedDevice: Sendable {
    var deviceId: String
    var publicKey: String
    var roles: Set<String>
    var scopes: Set<String>
    var platform: String?
    var deviceFamily: String?
}

/// An issued device token for (deviceId, role).
struct IssuedDeviceToken: Sendable {
    var token: String
    var scopes: [String]
    var issuedAtMs: Int64
}

/// A minted bootstrap token (node profile `{roles:["node"], scopes:[]}`).
struct BootstrapToken: Sendable {
    var issuedAtMs: Int64
    var roles: Set<String>
    var scopes: Set<String>
    var boundDeviceId: String?
    var boundPublicKey: String?
    var revoked = false
}

/// The approved capability surface of a node.
struct ApprovedSurface: Sendable, Equatable {
    var caps: Set<String>
    var commands: Set<String>
}
