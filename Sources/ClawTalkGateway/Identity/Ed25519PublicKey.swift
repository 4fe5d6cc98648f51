/// A raw 32-byte Ed25519 public key.
public struct Ed25519PublicKey: Sendable, Hashable, CustomStringConvertible {
    /// Raw key length in bytes.
    public static let byteCount = 32

    /// The 32 raw key bytes (not SPKI/DER).
    public let rawRepresentation: [UInt8]

    /// Wraps 32 raw key bytes; throws ``CryptoError/invalidKeyLength(expected:actual:)`` otherwise.
    public init(rawRepresentation: [UInt8]) throws {
        guard rawRepresentation.count == Self.byteCount else {
            throw CryptoError.invalidKeyLength(expected: Self.byteCount, actual: rawRepresentation.count)
        }
        self.rawRepresentation = rawRepresentation
    }

    /// Internal init for keys derived by libcrypto (already 32 bytes).
    init(derived bytes: [UInt8]) {
        precondition(bytes.count == Self.byteCount)
        rawRepresentation = bytes
    }

    /// True if `signature` is a valid Ed25519 signature of `message` under this key; a
    /// signature of the wrong length or any libcrypto error counts as invalid.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        LibCrypto.ed25519Verify(publicKey: rawRepresentation, signature: signature, message: message)
    }

    /// The key as unpadded base64url (`device.publicKey`).
    public var base64URL: String { Base64URL.encode(rawRepresentation) }

    /// `Ed25519PublicKey(<base64url>)`.
    public var description: String { "Ed25519PublicKey(\(base64URL))" }
}
