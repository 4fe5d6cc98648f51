/// The on-disk JSON of a ``DeviceIdentity`` (protocol.md §6.1.5).
struct IdentityFile: Codable, Equatable {
    /// Always `"Ed25519"`.
    var algorithm: String
    /// The 32-byte seed, unpadded base64url.
    var seed: String
    /// The raw public key, unpadded base64url.
    var publicKey: String
    /// Lowercase hex SHA-256 of the raw public key.
    var deviceId: String
    /// Creation time, milliseconds since the Unix epoch.
    var createdAtMs: Int64

    static let algorithmName = "Ed25519"

    init(_ identity: DeviceIdentity) {
        algorithm = Self.algorithmName
        seed = Base64URL.encode(identity.seed)
        publicKey = identity.publicKeyBase64URL
        deviceId = identity.deviceId
        createdAtMs = identity.createdAtMs
    }

    /// Recomputes the key and id from the seed and refuses any disagreement.
    func identity(path: String) throws -> DeviceIdentity {
        guard algorithm == Self.algorithmName else {
            throw IdentityError.unsupportedAlgorithm(path: path, algorithm: algorithm)
        }
        let seedBytes: [UInt8]
        do {
            seedBytes = try Base64URL.decode(seed)
        } catch {
            throw IdentityError.malformed(path: path, reason: "seed: \(error)")
        }
        guard seedBytes.count == Ed25519PrivateKey.seedByteCount else {
            throw IdentityError.malformed(
                path: path, reason: "seed has \(seedBytes.count) bytes, expected \(Ed25519PrivateKey.seedByteCount)")
        }
        let identity: DeviceIdentity
        do {
            identity = try DeviceIdentity(seed: seedBytes, createdAtMs: createdAtMs)
        } catch {
            throw IdentityError.malformed(path: path, reason: "seed: \(error)")
        }
        let storedKey = try? Base64URL.decode(publicKey)
        guard storedKey == identity.publicKey else {
            throw IdentityError.mismatch(path: path, field: "publicKey")
        }
        guard deviceId == identity.deviceId else {
            throw IdentityError.mismatch(path: path, field: "deviceId")
        }
        return identity
    }
}
