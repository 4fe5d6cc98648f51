#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Thin POSIX helpers for the few places Foundation cannot express (modes, owners, fsync,
/// atomic rename). Every function returns errno-based failures as `POSIXFailure`.
enum POSIXFile {
    struct Failure: Error {
        var code: Int32
        var message: String { String(cString: strerror(code)) }
    }

    /// The current user's uid.
    static var currentUser: UInt32 { UInt32(getuid()) }

    /// Owner, permission bits and type of `path` (following symlinks), nil when it does not exist.
    static func status(_ path: String) throws(Failure) -> (owner: UInt32, mode: UInt32, isDirectory: Bool)? {
        var st = stat()
        guard stat(path, &st) == 0 else {
            if errno == ENOENT { return nil }
            throw Failure(code: errno)
        }
        return (UInt32(st.st_uid), UInt32(st.st_mode) & 0o7777, (st.st_mode & S_IFMT) == S_IFDIR)
    }

    static func makeDirectory(_ path: String, mode: UInt32) throws(Failure) {
        guard mkdir(path, mode_t(mode)) == 0 || errno == EEXIST else { throw Failure(code: errno) }
    }

    static func changeMode(_ path: String, _ mode: UInt32) throws(Failure) {
        guard chmod(path, mode_t(mode)) == 0 else { throw Failure(code: errno) }
    }

    /// Reads a whole regular file; nil when it does not exist. With `followSymlinks` false a
    /// symlink is refused (ELOOP), so a secret cannot be redirected to another file.
    static func read(_ path: String, followSymlinks: Bool) throws(Failure) -> (
        bytes: [UInt8], owner: UInt32, mode: UInt32
    )? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (followSymlinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(code: errno)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure(code: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw Failure(code: EISDIR) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(code: errno)
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return (bytes, UInt32(st.st_uid), UInt32(st.st_mode) & 0o7777)
    }

    /// Writes `bytes` to `path` atomically: a fresh temp file in the same directory, created with
    /// `mode` before any byte is written, fsync'ed, renamed over `path`, then the directory fsync'ed.
    static func writeAtomically(_ bytes: [UInt8], to path: String, directory: String, mode: UInt32) throws(Failure) {
        let temp = "\(directory)/.\(path.split(separator: "/").last ?? "file").tmp-\(UInt64.random(in: 0...UInt64.max))"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(mode))
        guard fd >= 0 else { throw Failure(code: errno) }
        var renamed = false
        defer { if !renamed { unlink(temp) } }
        do throws(Failure) {
            guard fchmod(fd, mode_t(mode)) == 0 else { throw Failure(code: errno) }
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw Failure(code: errno)
                }
                offset += n
            }
            guard fsync(fd) == 0 else { throw Failure(code: errno) }
        } catch {
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw Failure(code: errno) }
        guard rename(temp, path) == 0 else { throw Failure(code: errno) }
        renamed = true
        let dirFd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFd >= 0 {
            _ = fsync(dirFd)
            close(dirFd)
        }
    }

    /// Removes a file; a missing file is not an error.
    static func remove(_ path: String) throws(Failure) {
        guard unlink(path) == 0 || errno == ENOENT else { throw Failure(code: errno) }
    }
}
