/// Cryptographically secure random bytes (libcrypto `RAND_bytes`).
public enum SecureRandom {
    /// `count` random bytes; throws ``CryptoError`` if the generator cannot be seeded.
    public static func bytes(_ count: Int) throws -> [UInt8] {
        try LibCrypto.randomBytes(count)
    }
}
