/// `ConnectParams.client` (closed, protocol.md §7.2). Optional strings that are nil or
/// empty are omitted from the wire.
public struct ClientInfo: Sendable, Hashable, Codable {
    /// `client.platform` of clawtalk, pinned at pairing (never the OS version).
    public static let linuxPlatform = "linux"
    /// `client.deviceFamily` of clawtalk, pinned at pairing.
    public static let linuxDeviceFamily = "Linux"

    /// `client.id`.
    public var id: GatewayClientID
    /// Configured name; default host name.
    public var displayName: String?
    /// clawtalk version.
    public var version: String
    /// `"linux"`; must stay byte-stable across releases.
    public var platform: String
    /// `"Linux"`; must stay byte-stable across releases.
    public var deviceFamily: String?
    /// Hardware model (e.g. the DMI product name).
    public var modelIdentifier: String?
    /// `client.mode`.
    public var mode: GatewayClientMode
    /// Per-install UUID (metadata).
    public var instanceId: String?

    /// Client metadata with the given values.
    public init(
        id: GatewayClientID, displayName: String? = nil, version: String, platform: String = ClientInfo.linuxPlatform,
        deviceFamily: String? = ClientInfo.linuxDeviceFamily, modelIdentifier: String? = nil, mode: GatewayClientMode,
        instanceId: String? = nil
    ) {
        self.id = id
        self.displayName = displayName
        self.version = version
        self.platform = platform
        self.deviceFamily = deviceFamily
        self.modelIdentifier = modelIdentifier
        self.mode = mode
        self.instanceId = instanceId
    }

    /// Encodes the closed set of keys, omitting nil and empty optionals.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfNonEmpty(displayName, forKey: .displayName)
        try container.encode(version, forKey: .version)
        try container.encode(platform, forKey: .platform)
        try container.encodeIfNonEmpty(deviceFamily, forKey: .deviceFamily)
        try container.encodeIfNonEmpty(modelIdentifier, forKey: .modelIdentifier)
        try container.encode(mode, forKey: .mode)
        try container.encodeIfNonEmpty(instanceId, forKey: .instanceId)
    }
}

extension KeyedEncodingContainer {
    /// Encodes `value` unless it is nil or empty (closed schemas: omit, never `null`/`""`).
    mutating func encodeIfNonEmpty(_ value: String?, forKey key: Key) throws {
        if let value, !value.isEmpty { try encode(value, forKey: key) }
    }
}
