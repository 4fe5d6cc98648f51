import Foundation
internal import Glibc
import Synchronization

/// A sound server that never answers: a Unix socket that accepts PulseAudio clients and sends them
/// nothing, as at a login while the session's server is still starting. A client connects, sends
/// its greeting and waits; ``connections`` counts who got that far. Set `PULSE_SERVER` to
/// ``address`` (or pass it as a PulseAudio server name).
public final class SilentSoundServer: Sendable {
    /// The directory holding the socket (removed on deinit).
    public let directory: String
    private let listener: Int32
    private let accepted = Accepted()

    /// The accepted descriptors, shared with the accepting thread.
    private final class Accepted: Sendable {
        let descriptors = Mutex<[Int32]>([])
    }

    /// Listens in a fresh directory under /tmp.
    public init() throws {
        var template = Array("/tmp/ct-silent-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(.EIO)
        }
        directory = String(cString: made)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array((directory + "/native").utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard listener >= 0, bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        let thread = Thread { [listener, accepted] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                accepted.descriptors.withLock { $0.append(client) }
            }
        }
        thread.name = "silent-sound-server"
        thread.start()
    }

    /// The server name: `unix:<directory>/native`.
    public var address: String { "unix:\(directory)/native" }

    /// Clients accepted so far (each then waits for an answer that never comes).
    public var connections: Int { accepted.descriptors.withLock { $0.count } }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in accepted.descriptors.withLock({ $0 }) { close(fd) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}
