/// Failures of the Ed25519 / SHA-256 / randomness primitives (libcrypto underneath).
public enum CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A key or seed had the wrong number of bytes.
    case invalidKeyLength(expected: Int, actual: Int)
    /// libcrypto refused an operation; `message` is libcrypto's own error string.
    case libcrypto(operation: String, message: String)

    /// One line, never key material.
    public var description: String {
        switch self {
        case .invalidKeyLength(let expected, let actual):
            "invalid key length: expected \(expected) bytes, got \(actual)"
        case .libcrypto(let operation, let message):
            "libcrypto \(operation) failed: \(message)"
        }
    }
}
