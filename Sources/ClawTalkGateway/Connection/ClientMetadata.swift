/// `client` metadata both connections announce (protocol.md §7.2).
public struct ClientMetadata: Sendable, Hashable {
    /// clawtalk version (`client.version`, `userAgent`).
    public var version: String
    /// Name shown in the gateway's node list.
    public var displayName: String?
    /// Hardware model (e.g. DMI product name).
    public var modelIdentifier: String?
    /// Per-install UUID.
    public var instanceId: String?
    /// BCP-47 locale.
    public var locale: String?

    /// Metadata with the given values.
    public init(
        version: String, displayName: String? = nil, modelIdentifier: String? = nil, instanceId: String? = nil,
        locale: String? = nil
    ) {
        self.version = version
        self.displayName = displayName
        self.modelIdentifier = modelIdentifier
        self.instanceId = instanceId
        self.locale = locale
    }
}
