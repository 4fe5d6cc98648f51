/// A device token stored per (gateway key, deviceId, role) with its scopes (protocol.md
/// §11.2). Deliberately not `CustomStringConvertible`: holds a secret.
public struct StoredDeviceToken: Sendable, Hashable, Codable {
    /// The device it was issued to.
    public var deviceId: String
    /// `node` or `operator` (raw: stored as the gateway said).
    public var role: String
    /// The token.
    public var token: String
    /// Granted scopes.
    public var scopes: [String]
    /// Issue time, milliseconds, when the gateway sent it.
    public var issuedAtMs: Int64?

    /// A stored token.
    public init(deviceId: String, role: String, token: String, scopes: [String], issuedAtMs: Int64?) {
        self.deviceId = deviceId
        self.role = role
        self.token = token
        self.scopes = scopes
        self.issuedAtMs = issuedAtMs
    }
}
