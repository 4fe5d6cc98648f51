/// Where a Wyoming server listens: a Unix socket (the node's own servers, reachable only by
/// their user) or a TCP host and port (a server the user runs elsewhere and names in the config).
public enum WyomingAddress: Sendable, Hashable, CustomStringConvertible {
    /// A TCP host name or address and port.
    case tcp(host: String, port: Int)
    /// A Unix domain socket at an absolute path.
    case unix(path: String)

    /// The longest socket path the kernel takes (`sun_path` is 108 bytes with its terminator).
    public static let maximumSocketPathBytes = 107

    /// The Wyoming URI servers take in `--uri`: `tcp://HOST:PORT` or `unix:///PATH`.
    public var uri: String {
        switch self {
        case .tcp(let host, let port): "tcp://\(host):\(port)"
        case .unix(let path): "unix://\(path)"
        }
    }

    /// `127.0.0.1:10300` or the socket's path: what logs, `status` and `doctor` print.
    public var description: String {
        switch self {
        case .tcp(let host, let port): "\(host):\(port)"
        case .unix(let path): path
        }
    }

    /// The socket path of a Unix address, nil for TCP.
    public var socketPath: String? {
        if case .unix(let path) = self { return path }
        return nil
    }

    /// The TCP port, nil for a Unix socket.
    public var port: Int? {
        if case .tcp(_, let port) = self { return port }
        return nil
    }

    /// Whether a server at this address runs on this machine: a Unix socket, or a loopback host
    /// (a supervised TCP server always binds 127.0.0.1).
    public var isLocal: Bool {
        switch self {
        case .unix: true
        case .tcp(let host, _):
            ["127.0.0.1", "localhost", "::1", "[::1]", "ip6-localhost"].contains(host.lowercased())
                || host.hasPrefix("127.")
        }
    }
}
