/// An Ed25519 signing key held as its 32-byte seed (RFC 8032 private key).
///
/// The public key is derived once at creation. `description` and `debugDescription` never show
/// the seed.
public struct Ed25519PrivateKey: Sendable, Equatable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    /// Seed length in bytes.
    public static let seedByteCount = 32

    /// The 32-byte seed; secret.
    public let rawRepresentation: [UInt8]
    /// The matching public key.
    public let publicKey: Ed25519PublicKey

    /// Creates the key of a 32-byte seed; throws ``CryptoError``.
    public init(rawRepresentation seed: [UInt8]) throws {
        let publicBytes = try LibCrypto.ed25519PublicKey(seed: seed)
        rawRepresentation = seed
        publicKey = Ed25519PublicKey(derived: publicBytes)
    }

    /// A new key from a fresh random seed.
    public static func generate() throws -> Ed25519PrivateKey {
        try Ed25519PrivateKey(rawRepresentation: SecureRandom.bytes(seedByteCount))
    }

    /// The deterministic 64-byte Ed25519 signature of `message`.
    public func signature(for message: [UInt8]) throws -> [UInt8] {
        try LibCrypto.ed25519Sign(seed: rawRepresentation, message: message)
    }

    /// Redacted: shows only the public key.
    public var description: String { "Ed25519PrivateKey(public: \(publicKey.base64URL))" }

    /// Redacted like ``description``.
    public var debugDescription: String { description }

    /// Redacted for `dump` and mirrors: only the public key.
    public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }
}
