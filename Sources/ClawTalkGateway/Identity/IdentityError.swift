/// Why the device identity file could not be loaded or saved. Never carries key material.
public enum IdentityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No identity file at `path`.
    case notFound(path: String)
    /// A system call failed; `message` is `strerror` text.
    case io(path: String, operation: String, message: String)
    /// The file is not a regular file (directory, device, socket…).
    case notRegularFile(path: String)
    /// The file is readable or writable by group or others (`mode` holds the permission bits).
    case insecurePermissions(path: String, mode: UInt32)
    /// The file is not the expected JSON (bad syntax, missing field, bad base64url, wrong size).
    case malformed(path: String, reason: String)
    /// `algorithm` is not `Ed25519`.
    case unsupportedAlgorithm(path: String, algorithm: String)
    /// A stored field (`publicKey` or `deviceId`) disagrees with the value recomputed from the seed.
    case mismatch(path: String, field: String)

    /// One line naming the file and the fix where there is one.
    public var description: String {
        switch self {
        case .notFound(let path):
            "device identity \(path) does not exist"
        case .io(let path, let operation, let message):
            "device identity \(path): \(operation) failed: \(message)"
        case .notRegularFile(let path):
            "device identity \(path) is not a regular file"
        case .insecurePermissions(let path, let mode):
            "device identity \(path) is accessible by group or others (mode 0\(String(mode, radix: 8))); run chmod 600 on it"
        case .malformed(let path, let reason):
            "device identity \(path) is malformed: \(reason)"
        case .unsupportedAlgorithm(let path, let algorithm):
            "device identity \(path) uses unsupported algorithm \"\(algorithm)\" (expected Ed25519)"
        case .mismatch(let path, let field):
            "device identity \(path): stored \(field) does not match the key derived from the seed; refusing to use it"
        }
    }
}
