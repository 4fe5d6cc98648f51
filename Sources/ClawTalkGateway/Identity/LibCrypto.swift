internal import CCrypto

/// The one place that calls the CCrypto shim and turns its return codes into ``CryptoError``.
///
/// CCrypto keeps no C object alive between calls (each call creates, uses and frees its own
/// EVP objects), so there is no owner class: plain functions, safe from any thread. libcrypto's
/// error queue is per thread and cleared by every shim call, so `check` reads the message on the
/// same thread right after the failing call (no `await` in between).
enum LibCrypto {
    static let seedByteCount = 32
    static let publicKeyByteCount = 32
    static let signatureByteCount = 64
    static let sha256ByteCount = 32

    /// Derives the raw public key of a 32-byte Ed25519 seed.
    static func ed25519PublicKey(seed: [UInt8]) throws(CryptoError) -> [UInt8] {
        try requireLength(seed, seedByteCount)
        var out = [UInt8](repeating: 0, count: publicKeyByteCount)
        let rc = seed.withUnsafeBufferPointer { seedBuffer in
            out.withUnsafeMutableBufferPointer { outBuffer in
                ccrypto_ed25519_public_from_seed(seedBuffer.baseAddress, outBuffer.baseAddress)
            }
        }
        try check(rc, "Ed25519 public key derivation")
        return out
    }

    /// Pure Ed25519 signature (64 bytes) of `message` under the key of `seed`.
    static func ed25519Sign(seed: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try requireLength(seed, seedByteCount)
        var out = [UInt8](repeating: 0, count: signatureByteCount)
        let rc = seed.withUnsafeBufferPointer { seedBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                out.withUnsafeMutableBufferPointer { outBuffer in
                    ccrypto_ed25519_sign(
                        seedBuffer.baseAddress, messageBuffer.baseAddress, messageBuffer.count,
                        outBuffer.baseAddress)
                }
            }
        }
        try check(rc, "Ed25519 signing")
        return out
    }

    /// True only for a well-formed signature that verifies; any error counts as invalid.
    static func ed25519Verify(publicKey: [UInt8], signature: [UInt8], message: [UInt8]) -> Bool {
        guard publicKey.count == publicKeyByteCount, signature.count == signatureByteCount else {
            return false
        }
        let rc = publicKey.withUnsafeBufferPointer { keyBuffer in
            signature.withUnsafeBufferPointer { signatureBuffer in
                message.withUnsafeBufferPointer { messageBuffer in
                    ccrypto_ed25519_verify(
                        keyBuffer.baseAddress, messageBuffer.baseAddress, messageBuffer.count,
                        signatureBuffer.baseAddress)
                }
            }
        }
        if rc < 0 { _ = lastError() }  // drain the queue; the caller only learns "invalid"
        return rc == 1
    }

    /// SHA-256 of `bytes`.
    static func sha256(_ bytes: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: sha256ByteCount)
        let rc = out.withUnsafeMutableBufferPointer { outBuffer in
            ccrypto_sha256(bytes.baseAddress, bytes.count, outBuffer.baseAddress)
        }
        try check(rc, "SHA-256")
        return out
    }

    /// `count` bytes from libcrypto's CSPRNG.
    static func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        precondition(count >= 0, "byte count must not be negative")
        var out = [UInt8](repeating: 0, count: count)
        let rc = out.withUnsafeMutableBufferPointer { outBuffer in
            ccrypto_random_bytes(outBuffer.baseAddress, outBuffer.count)
        }
        try check(rc, "random bytes")
        return out
    }

    private static func requireLength(_ bytes: [UInt8], _ expected: Int) throws(CryptoError) {
        guard bytes.count == expected else {
            throw .invalidKeyLength(expected: expected, actual: bytes.count)
        }
    }

    /// Turns a negative shim return code into ``CryptoError/libcrypto(operation:message:)``.
    private static func check(_ rc: Int32, _ operation: String) throws(CryptoError) {
        guard rc < 0 else { return }
        let message = rc == CCRYPTO_ERR_ARGUMENT ? "invalid argument" : lastError()
        throw .libcrypto(operation: operation, message: message)
    }

    /// libcrypto's message for this thread's oldest queued error (and clears the queue).
    private static func lastError() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = buffer.withUnsafeMutableBufferPointer { ccrypto_last_error($0.baseAddress, $0.count) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
