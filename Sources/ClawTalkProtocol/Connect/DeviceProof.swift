/// `ConnectParams.device {id, publicKey, signature, signedAt, nonce}` (protocol.md §6,
/// §7.2): the Ed25519 proof of the device identity.
public struct DeviceProof: Sendable, Hashable, Codable {
    /// deviceId: lowercase hex SHA-256 of the raw public key.
    public var id: String
    /// Raw 32-byte public key, base64url without padding.
    public var publicKey: String
    /// Signature over the v3/v2 payload string, base64url without padding.
    public var signature: String
    /// Milliseconds; equals the challenge `ts` when there was one.
    public var signedAt: Int64
    /// The trimmed challenge nonce.
    public var nonce: String

    /// A proof with the given values.
    public init(id: String, publicKey: String, signature: String, signedAt: Int64, nonce: String) {
        self.id = id
        self.publicKey = publicKey
        self.signature = signature
        self.signedAt = signedAt
        self.nonce = nonce
    }
}
