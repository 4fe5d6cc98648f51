public import Foundation

/// Small helpers for `AF_UNIX` stream sockets shared by the control socket's server and client.
public enum UnixSocket {
    /// Longest path a `sockaddr_un` holds (107 bytes and the terminating zero).
    public static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Calls `body` with the socket address of `path`.
    public static func withAddress<T>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) throws(ControlSocketError) -> T {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathBytes, !bytes.contains(0) else { throw .pathTooLong(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// A new `AF_UNIX` stream socket (close-on-exec).
    public static func make() throws(ControlSocketError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw systemError("socket") }
        return fd
    }

    /// Sets a send or receive timeout (`SO_SNDTIMEO`/`SO_RCVTIMEO`).
    public static func setTimeout(_ fd: Int32, option: Int32, _ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        _ = setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads until a newline, end of file, `limit` bytes or an error (e.g. the receive timeout);
    /// returns the bytes before the newline and whether a newline was seen.
    public static func readLine(_ fd: Int32, limit: Int = 65_536) -> (line: Data, complete: Bool) {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count < limit {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return (data, false) }
            if let newline = buffer[0..<count].firstIndex(of: 0x0A) {
                data.append(contentsOf: buffer[0..<newline])
                return (data, true)
            }
            data.append(contentsOf: buffer[0..<count])
        }
        return (data, false)
    }

    /// Writes all of `data` (no `SIGPIPE` if the peer went away); false on failure.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ data: Data) -> Bool {
        var offset = 0
        let bytes = [UInt8](data)
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// The uid of the process at the other end (`SO_PEERCRED`), nil if unavailable.
    public static func peerUID(_ fd: Int32) -> UInt32? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (not exported to Swift without _GNU_SOURCE).
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
            Int(length) == MemoryLayout.size(ofValue: credentials)
        else { return nil }
        return credentials.1
    }

    /// ``ControlSocketError/system(operation:message:)`` for the current `errno`.
    public static func systemError(_ operation: String, code: Int32 = errno) -> ControlSocketError {
        .system(operation: operation, message: String(cString: strerror(code)))
    }
}
