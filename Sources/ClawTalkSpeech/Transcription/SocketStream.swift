import ClawTalkSupport
internal import Glibc

/// A blocking client connection over POSIX sockets, TCP or Unix (``WyomingAddress``), with a
/// deadline on every operation.
///
/// Foundation has no client socket API on Linux, so this is the Wyoming client's transport.
/// The socket is non-blocking and every wait is a `poll` bounded by the caller's deadline; writes
/// use `MSG_NOSIGNAL` so a peer that hung up gives `EPIPE` instead of killing the process.
/// Not thread-safe: one ``SerialLane`` owns a stream; only ``SocketCancellation/cancel()`` may
/// touch it from elsewhere (it shuts the socket down).
final class SocketStream {
    /// A socket call failed; `code` is its `errno`.
    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var code: Int32
        var message: String

        /// A failure described by `strerror(code)`.
        init(operation: String, code: Int32) {
            self.init(operation: operation, code: code, message: String(cString: strerror(code)))
        }

        init(operation: String, code: Int32, message: String) {
            self.operation = operation
            self.code = code
            self.message = message
        }

        var description: String { "\(operation): \(message)" }
    }

    /// The deadline passed before the operation finished.
    struct DeadlineExceeded: Error {}

    /// The exchange was cancelled through its ``SocketCancellation``.
    struct Cancelled: Error {}

    private let fd: Int32
    private let cancellation: SocketCancellation
    private var closed = false

    /// Connects to `address` before `deadline`: a Unix socket, or a TCP `host:port` (a name or a
    /// numeric address, each resolved address tried until one accepts). Throws ``Failure``
    /// (refused, unreachable, unresolvable, no such socket), ``DeadlineExceeded`` or ``Cancelled``.
    init(address: WyomingAddress, deadline: ContinuousClock.Instant, cancellation: SocketCancellation) throws {
        self.cancellation = cancellation
        switch address {
        case .unix(let path):
            fd = try Self.connectUnix(path: path, deadline: deadline, cancellation: cancellation)
        case .tcp(let host, let port):
            fd = try Self.connectTCP(host: host, port: port, deadline: deadline, cancellation: cancellation)
        }
    }

    private static func connectUnix(
        path: String, deadline: ContinuousClock.Instant, cancellation: SocketCancellation
    ) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= WyomingAddress.maximumSocketPathBytes else {
            throw Failure(operation: "connect \(path)", code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(operation: "socket", code: errno) }
        cancellation.register(fd)
        do {
            let length = socklen_t(MemoryLayout<sockaddr_un>.size)
            try withUnsafePointer(to: &address) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try connect(fd, to: $0, length: length, deadline: deadline, cancellation: cancellation)
                }
            }
            return fd
        } catch {
            cancellation.closeSocket(fd)
            throw error
        }
    }

    private static func connectTCP(
        host: String, port: Int, deadline: ContinuousClock.Instant, cancellation: SocketCancellation
    ) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            let message = rc == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(rc))
            throw Failure(operation: "resolve \(host)", code: EHOSTUNREACH, message: message)
        }
        defer { freeaddrinfo(list) }
        var lastError: any Error = Failure(operation: "connect", code: ECONNREFUSED)
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = Failure(operation: "socket", code: errno)
                continue
            }
            cancellation.register(fd)
            do {
                try connect(
                    fd, to: info.pointee.ai_addr, length: info.pointee.ai_addrlen, deadline: deadline,
                    cancellation: cancellation)
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return fd
            } catch let error as Cancelled {
                cancellation.closeSocket(fd)
                throw error
            } catch let error as DeadlineExceeded {
                cancellation.closeSocket(fd)
                throw error
            } catch {
                cancellation.closeSocket(fd)
                lastError = error
            }
        }
        throw lastError
    }

    deinit {
        close()
    }

    /// Closes the connection (idempotent).
    func close() {
        guard !closed else { return }
        closed = true
        cancellation.closeSocket(fd)
    }

    /// Writes all of `bytes` before `deadline`.
    func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) throws {
        var offset = 0
        while offset < bytes.count {
            try wait(for: Int16(POLLOUT), deadline: deadline)
            let n = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                throw cancellation.isCancelled ? Cancelled() : Failure(operation: "send", code: errno) as any Error
            }
            offset += n
        }
    }

    /// Writes all of `bytes` before `deadline`.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws {
        try bytes.withUnsafeBytes { try write($0, deadline: deadline) }
    }

    /// Reads what is available (at most `maximum` bytes), waiting until `deadline` for some;
    /// an empty result means the peer closed the connection.
    func read(maximum: Int = 65536, deadline: ContinuousClock.Instant) throws -> [UInt8] {
        while true {
            try wait(for: Int16(POLLIN), deadline: deadline)
            var buffer = [UInt8](repeating: 0, count: maximum)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, maximum, 0) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                throw cancellation.isCancelled ? Cancelled() : Failure(operation: "recv", code: errno) as any Error
            }
            if cancellation.isCancelled { throw Cancelled() }
            buffer.removeLast(maximum - n)
            return buffer
        }
    }

    /// Reads what is available now without waiting: nil when nothing is, an empty result when
    /// the peer closed the connection.
    func readIfAvailable(maximum: Int = 4096) throws -> [UInt8]? {
        if cancellation.isCancelled { throw Cancelled() }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = Glibc.poll(&descriptor, 1, 0)
        if ready < 0 {
            if errno == EINTR { return nil }
            throw Failure(operation: "poll", code: errno)
        }
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: maximum)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, maximum, 0) }
        if n < 0 {
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw Failure(operation: "recv", code: errno)
        }
        buffer.removeLast(maximum - n)
        return buffer
    }

    // MARK: - Private

    /// Polls for `events` until `deadline`; throws on timeout or cancellation.
    private func wait(for events: Int16, deadline: ContinuousClock.Instant) throws {
        try Self.poll(fd, events: events, deadline: deadline, cancellation: cancellation)
    }

    private static func poll(
        _ fd: Int32, events: Int16, deadline: ContinuousClock.Instant, cancellation: SocketCancellation
    ) throws {
        while true {
            if cancellation.isCancelled { throw Cancelled() }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw DeadlineExceeded() }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let n = Glibc.poll(&descriptor, 1, milliseconds)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(operation: "poll", code: errno)
            }
            if n > 0 { return }
        }
    }

    private static func connect(
        _ fd: Int32, to address: UnsafePointer<sockaddr>?, length: socklen_t, deadline: ContinuousClock.Instant,
        cancellation: SocketCancellation
    ) throws {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw Failure(operation: "fcntl", code: errno)
        }
        if Glibc.connect(fd, address, length) == 0 { return }
        // A Unix socket whose backlog is full says EAGAIN: the server is there but busy.
        guard errno == EINPROGRESS || errno == EINTR else { throw Failure(operation: "connect", code: errno) }
        try poll(fd, events: Int16(POLLOUT), deadline: deadline, cancellation: cancellation)
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else {
            throw Failure(operation: "connect", code: errno)
        }
        if cancellation.isCancelled { throw Cancelled() }
        guard error == 0 else { throw Failure(operation: "connect", code: error) }
    }
}
