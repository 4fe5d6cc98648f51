internal import Glibc

/// TCP ports on 127.0.0.1: a free one, picked by binding port 0 and reading what the kernel chose
/// (the node's own Whisper server, the tests' "nothing listens here"), and whether one accepts
/// connections. A picked port is released again, so another process could take it before it is
/// used: fine for tests and one-off servers.
public enum LoopbackPort {
    /// Why no port could be picked (a socket call failed).
    public struct Failure: Error, CustomStringConvertible {
        /// The failed call and the system's reason.
        public let description: String
    }

    /// A currently free port on 127.0.0.1.
    public static func pick() throws(Failure) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "no socket for a port probe: \(errnoText())") }
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw Failure(description: "cannot bind a loopback port: \(errnoText())") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure(description: "getsockname failed: \(errnoText())") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` now (connect, then close).
    public static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: UInt16(port))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        address.sin_port = port.bigEndian
        return address
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
