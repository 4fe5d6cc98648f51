internal import Glibc

/// Picks a free TCP port on the loopback interface by binding port 0 and reading what the kernel
/// chose. The port is released again, so another process could take it before it is used; fine
/// for tests and one-off servers.
enum LoopbackPort {
    /// A currently free port on 127.0.0.1.
    static func pick() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SpeechError.sttServerStart("no socket for a port probe: \(errnoText())") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw SpeechError.sttServerStart("cannot bind a loopback port: \(errnoText())") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw SpeechError.sttServerStart("getsockname failed: \(errnoText())") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
