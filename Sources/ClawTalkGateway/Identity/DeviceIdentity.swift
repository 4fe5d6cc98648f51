import Foundation

/// This install's device identity (protocol.md §6.1): an Ed25519 key, its deviceId and
/// when it was created.
///
/// One identity per install, never rotated implicitly: a new key is a new device that has to be
/// paired again. Persist it with ``IdentityStore``. `description`, `debugDescription` and
/// mirrors never show the seed.
public struct DeviceIdentity: Sendable, Equatable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    /// The signing key.
    public let privateKey: Ed25519PrivateKey
    /// Lowercase hex SHA-256 of the raw public key (64 characters).
    public let deviceId: String
    /// Creation time, milliseconds since the Unix epoch.
    public let createdAtMs: Int64

    /// The identity of a 32-byte seed; throws ``CryptoError`` for a bad seed.
    public init(seed: [UInt8], createdAtMs: Int64) throws {
        let key = try Ed25519PrivateKey(rawRepresentation: seed)
        privateKey = key
        deviceId = Self.deviceId(forPublicKey: key.publicKey.rawRepresentation)
        self.createdAtMs = createdAtMs
    }

    /// A new identity from a fresh random seed, created now (or at `createdAtMs`).
    public static func generate(createdAtMs: Int64 = currentTimeMs()) throws -> DeviceIdentity {
        try DeviceIdentity(seed: SecureRandom.bytes(Ed25519PrivateKey.seedByteCount), createdAtMs: createdAtMs)
    }

    /// The 32-byte private seed; secret.
    public var seed: [UInt8] { privateKey.rawRepresentation }

    /// The raw 32-byte public key.
    public var publicKey: [UInt8] { privateKey.publicKey.rawRepresentation }

    /// The public key as unpadded base64url (`device.publicKey`).
    public var publicKeyBase64URL: String { privateKey.publicKey.base64URL }

    /// The unpadded base64url Ed25519 signature of the UTF-8 bytes of `payload`
    /// (`device.signature`).
    public func sign(payload: String) throws -> String {
        Base64URL.encode(try privateKey.signature(for: Array(payload.utf8)))
    }

    /// The deviceId of a raw public key: lowercase hex SHA-256 (protocol.md §6.1.2).
    public static func deviceId(forPublicKey rawPublicKey: [UInt8]) -> String {
        Hex.lowercase(SHA256.hash(rawPublicKey))
    }

    /// Wall-clock milliseconds since the Unix epoch.
    public static func currentTimeMs() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Redacted: deviceId and public key only.
    public var description: String {
        "DeviceIdentity(deviceId: \(deviceId), publicKey: \(publicKeyBase64URL))"
    }

    /// Redacted like ``description``.
    public var debugDescription: String { description }

    /// Redacted for `dump` and mirrors: no seed.
    public var customMirror: Mirror {
        Mirror(self, children: ["deviceId": deviceId, "publicKey": publicKeyBase64URL, "createdAtMs": createdAtMs])
    }
}
