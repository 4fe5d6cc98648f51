/// Why the state directory or a secret file in it cannot be used.
public enum StateDirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path exists but is not a directory.
    case notADirectory(path: String)
    /// The directory or file belongs to another user.
    case foreignOwner(path: String, owner: UInt32, expected: UInt32)
    /// A secret file is readable or writable by group or others.
    case insecureFile(path: String, mode: UInt32)
    /// A file name that is empty, contains `/`, or is `.`/`..`.
    case invalidName(String)
    /// A system call failed.
    case io(path: String, operation: String, message: String)

    /// One line, naming the path and what to do.
    public var description: String {
        switch self {
        case .notADirectory(let path):
            "state directory \(path) exists but is not a directory"
        case .foreignOwner(let path, let owner, let expected):
            "refusing to use \(path): it is owned by uid \(owner), not by this user (uid \(expected))"
        case .insecureFile(let path, let mode):
            "refusing to read \(path): mode \(Self.octal(mode)) lets group or others access it; run: chmod 600 \(path)"
        case .invalidName(let name):
            "invalid state file name \"\(name)\""
        case .io(let path, let operation, let message):
            "\(operation) \(path): \(message)"
        }
    }

    /// `0644`-style text for permission bits.
    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
