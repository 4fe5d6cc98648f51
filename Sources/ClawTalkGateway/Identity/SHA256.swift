/// SHA-256 (libcrypto).
public enum SHA256 {
    /// Digest length in bytes.
    public static let byteCount = 32

    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { digest($0) }
    }

    /// The 32-byte digest of the UTF-8 bytes of `string`.
    public static func hash(_ string: String) -> [UInt8] {
        hash(Array(string.utf8))
    }

    private static func digest(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        do {
            return try LibCrypto.sha256(buffer)
        } catch {
            // EVP_Digest with SHA-256 fails only if libcrypto cannot allocate a context.
            fatalError("\(error)")
        }
    }
}
