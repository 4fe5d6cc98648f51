public import Foundation
import Glibc

/// Loads and saves the ``DeviceIdentity`` JSON file (protocol.md §6.1.5).
///
/// Rules: the file is mode `0600`; it is written atomically (a `0600` temp file in the same
/// directory, written, fsync'ed, then renamed into place and the directory fsync'ed); on load
/// the key and deviceId are recomputed from the seed and any disagreement, a wrong algorithm, a
/// non-regular file or group/world permission bits (`st_mode & 0o077 != 0`) is refused with an
/// ``IdentityError`` — the node must not start with it. A missing parent directory is created
/// with mode `0700`. Blocking file I/O: call it at start-up, not from an audio thread.
public struct IdentityStore: Sendable {
    /// The identity file.
    public let fileURL: URL

    /// Identity files larger than this are refused as malformed.
    static let maximumFileSize = 64 * 1024

    /// A store for the file at `fileURL` (must be a file URL).
    public init(fileURL: URL) {
        precondition(fileURL.isFileURL, "IdentityStore needs a file URL")
        self.fileURL = fileURL
    }

    /// Loads the identity of `fileURL`, or creates, saves and returns a new one if the file
    /// does not exist. An existing but unusable file is an error, never silently replaced.
    public static func loadOrCreate(at fileURL: URL) throws -> DeviceIdentity {
        try IdentityStore(fileURL: fileURL).loadOrCreate()
    }

    /// Loads the stored identity, or creates and saves a new one if there is no file yet. If
    /// another process creates the file at the same moment, its identity wins and is returned.
    public func loadOrCreate() throws -> DeviceIdentity {
        do {
            return try load()
        } catch IdentityError.notFound {
            let identity = try DeviceIdentity.generate()
            if try write(identity, replacing: false) { return identity }
            return try load()
        }
    }

    /// Loads and verifies the stored identity; throws ``IdentityError``.
    public func load() throws -> DeviceIdentity {
        let bytes = try readVerifiedFile()
        let file: IdentityFile
        do {
            file = try JSONDecoder().decode(IdentityFile.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw IdentityError.malformed(path: path, reason: Self.summary(of: error))
        } catch {
            throw IdentityError.malformed(path: path, reason: "not valid JSON")
        }
        return try file.identity(path: path)
    }

    /// Writes `identity`, atomically replacing any existing file.
    public func save(_ identity: DeviceIdentity) throws {
        _ = try write(identity, replacing: true)
    }

    // MARK: - File system

    private var path: String { fileURL.path(percentEncoded: false) }

    /// Opens without following into FIFOs' blocking open, checks type and permissions on the
    /// open descriptor (no check-then-open race) and reads at most ``maximumFileSize`` bytes.
    private func readVerifiedFile() throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { throw IdentityError.notFound(path: path) }
            throw posixError("open")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw posixError("fstat") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw IdentityError.notRegularFile(path: path) }
        guard info.st_mode & 0o077 == 0 else {
            throw IdentityError.insecurePermissions(path: path, mode: info.st_mode & 0o7777)
        }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw posixError("read")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= Self.maximumFileSize else {
                throw IdentityError.malformed(path: path, reason: "larger than \(Self.maximumFileSize) bytes")
            }
        }
        return bytes
    }

    /// Writes the file through a temp file. With `replacing == false` an existing file is left
    /// alone and `false` is returned.
    private func write(_ identity: DeviceIdentity, replacing: Bool) throws -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var bytes = Array(try encoder.encode(IdentityFile(identity)))
        bytes.append(UInt8(ascii: "\n"))
        defer { bytes.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }

        let directory = fileURL.deletingLastPathComponent()
        let directoryPath = directory.path(percentEncoded: false)
        try createDirectoryIfMissing(directory)
        let tempPath = directory.appendingPathComponent(
            ".\(fileURL.lastPathComponent).tmp-\(Hex.lowercase(try SecureRandom.bytes(8)))"
        ).path(percentEncoded: false)

        let fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw posixError("create temp file in", directoryPath) }
        var tempExists = true
        defer { if tempExists { unlink(tempPath) } }
        do {
            defer { close(fd) }
            guard fchmod(fd, 0o600) == 0 else { throw posixError("chmod temp file", tempPath) }
            try writeAll(fd, bytes, tempPath)
            guard fsync(fd) == 0 else { throw posixError("fsync", tempPath) }
        }

        if replacing {
            guard rename(tempPath, path) == 0 else { throw posixError("rename") }
            tempExists = false
        } else if link(tempPath, path) != 0 {
            switch errno {
            case EEXIST:
                return false
            case EPERM, EOPNOTSUPP, ENOSYS, EMLINK:
                // No hard links on this file system: best effort create-if-absent.
                var info = stat()
                if lstat(path, &info) == 0 { return false }
                guard rename(tempPath, path) == 0 else { throw posixError("rename") }
                tempExists = false
            default:
                throw posixError("link")
            }
        }
        syncDirectory(directoryPath)
        return true
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8], _ filePath: String) throws {
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw posixError("write", filePath)
                }
                offset += written
            }
        }
    }

    private func createDirectoryIfMissing(_ directory: URL) throws {
        let directoryPath = directory.path(percentEncoded: false)
        var info = stat()
        if stat(directoryPath, &info) == 0 { return }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw IdentityError.io(path: directoryPath, operation: "create directory", message: "\(error)")
        }
    }

    /// Makes the rename durable; failures here do not undo a completed write, so they are ignored.
    private func syncDirectory(_ directoryPath: String) {
        let fd = open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private func posixError(_ operation: String, _ errorPath: String? = nil) -> IdentityError {
        let message = String(cString: strerror(errno))
        return .io(path: errorPath ?? path, operation: operation, message: message)
    }

    /// A one-line decoding problem without values from the file.
    private static func summary(of error: DecodingError) -> String {
        func keyPath(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, _): return "missing field \(key.stringValue)"
        case .typeMismatch(_, let context): return "wrong type for \(keyPath(context))"
        case .valueNotFound(_, let context): return "null \(keyPath(context))"
        case .dataCorrupted: return "not valid JSON"
        @unknown default: return "not valid JSON"
        }
    }
}
