/// The signature version remembered for a gateway key after a successful v3→v2 fallback
/// (protocol.md §6.2), valid until `hello-ok.server.version` changes.
public struct RememberedSignature: Sendable, Hashable, Codable {
    /// The version that worked.
    public var version: DeviceAuthVersion
    /// `server.version` it worked with.
    public var serverVersion: String

    /// A remembered version.
    public init(version: DeviceAuthVersion, serverVersion: String) {
        self.version = version
        self.serverVersion = serverVersion
    }

    private enum CodingKeys: String, CodingKey {
        case version, serverVersion
    }

    /// Reads `{version:"v2", serverVersion}`; an unknown version is a decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let raw = try container.decode(String.self, forKey: .version)
        guard let version = DeviceAuthVersion(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container, debugDescription: "unknown signature version")
        }
        self.init(version: version, serverVersion: try container.decode(String.self, forKey: .serverVersion))
    }

    /// Writes `{version, serverVersion}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version.rawValue, forKey: .version)
        try container.encode(serverVersion, forKey: .serverVersion)
    }
}
