public import ClawTalkSupport
import Dispatch
public import Foundation
import Synchronization

/// The service end of the local control socket (`ptt.controlSocket`, default
/// `$XDG_RUNTIME_DIR/clawtalk/control.sock`) that `clawtalk ptt …` and desktop keybindings talk
/// to: one JSON request line in, one response line out, then the connection closes.
///
/// Access is owner-only: the socket is created mode 0600 in a 0700 directory (a missing
/// directory, or one named `clawtalk`, is created or tightened to 0700; an existing directory
/// chosen by the user is left as it is), and every connection's peer uid (`SO_PEERCRED`) must
/// equal the service's uid (``ControlPeerPolicy``). A stale socket file from a crashed service is
/// replaced; a live one (another service answers) is an error.
///
/// Threads: one accept thread (`clawtalk.control`) blocks in `poll` on the listening socket and
/// a wake pipe, checks the peer and reads the request line (1 s receive timeout); the handler
/// then runs in a task that writes the answer and closes the connection. ``stop()`` wakes the
/// thread through the pipe, joins it and removes the socket file.
public final class ControlSocketServer: @unchecked Sendable {
    // @unchecked: the file descriptors are created in init, used only by the accept thread
    // while it runs, and closed in deinit (after stop() joined the thread); `lifecycle` is locked.

    /// Answers one request.
    public typealias Handler = @Sendable (ControlRequest) async -> ControlResponse

    /// The socket path.
    public let path: String
    /// The uid allowed to connect (the service's own).
    public let ownerUID: UInt32
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let handler: Handler
    private let logger: Logger
    private let finished = DispatchSemaphore(value: 0)
    private let lifecycle = Mutex(Lifecycle.idle)
    /// Requests being answered: children of the server, not loose tasks.
    private let requests = OwnedTaskGroup()

    private enum Lifecycle {
        case idle, running, stopped
    }

    /// Binds and listens on `path` (nothing is accepted until ``start()``).
    public init(
        path: String, ownerUID: UInt32 = UInt32(getuid()), logger: Logger = .discarding,
        handler: @escaping Handler
    ) throws(ControlSocketError) {
        self.path = path
        self.ownerUID = ownerUID
        self.handler = handler
        self.logger = logger.child(category: "control")
        try Self.prepareDirectory(for: path)
        try Self.removeStaleSocket(at: path)
        let listener = try UnixSocket.make()
        do {
            try Self.check(UnixSocket.withAddress(path) { bind(listener, $0, $1) }, "bind \(path)")
            try Self.check(chmod(path, 0o600), "chmod \(path)")
            try Self.check(listen(listener, 16), "listen")
        } catch {
            close(listener)
            throw error
        }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            let error = UnixSocket.systemError("pipe")
            close(listener)
            unlink(path)
            throw error
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        self.listener = listener
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    deinit {
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Starts the accept thread (once).
    public func start() {
        let start = lifecycle.locked { state -> Bool in
            guard case .idle = state else { return false }
            state = .running
            return true
        }
        guard start else { return }
        let thread = Thread { [self] in
            acceptLoop()
            finished.signal()
        }
        thread.name = "clawtalk.control"
        thread.start()
        logger.info("control.listening", ["path": .string(path)])
    }

    /// Stops accepting, joins the thread and removes the socket file. Calling it again does nothing.
    public func stop() {
        let previous = lifecycle.locked { state -> Lifecycle in
            defer { state = .stopped }
            return state
        }
        switch previous {
        case .stopped:
            return
        case .running:
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
            _ = finished.wait(timeout: .now() + .seconds(2))
        case .idle:
            break
        }
        unlink(path)
    }

    // MARK: - Accept thread

    private func acceptLoop() {
        while true {
            var fds = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                logger.error("control.poll.failed", ["error": .string(String(cString: strerror(errno)))])
                return
            }
            if fds[1].revents != 0 { return }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            serve(connection)
        }
    }

    /// Checks the peer, reads the request and hands it to the handler (which closes `fd`).
    private func serve(_ fd: Int32) {
        let peer = UnixSocket.peerUID(fd)
        UnixSocket.setTimeout(fd, option: SO_SNDTIMEO, .seconds(2))
        guard ControlPeerPolicy.allows(peerUID: peer, ownerUID: ownerUID) else {
            logger.warning("control.peer.refused", ["uid": .string(peer.map { String($0) } ?? "unknown")])
            UnixSocket.writeAll(fd, ControlResponse.failure(ControlPeerPolicy.refusal(ownerUID: ownerUID)).line())
            close(fd)
            return
        }
        UnixSocket.setTimeout(fd, option: SO_RCVTIMEO, .seconds(1))
        let (line, complete) = UnixSocket.readLine(fd, limit: 4096)
        guard complete || !line.isEmpty, let request = ControlRequest.parse(line) else {
            logger.warning("control.request.invalid", ["bytes": .int(line.count)])
            UnixSocket.writeAll(
                fd,
                ControlResponse.failure(
                    "INVALID_REQUEST: expected {\"command\":\"ptt.start|stop|toggle|cancel|once\"} or talk.on|off|toggle|status"
                )
                .line())
            close(fd)
            return
        }
        logger.debug("control.request", ["command": .string(request.command.rawValue)])
        let handler = handler
        requests.spawn {
            let response = await handler(request)
            UnixSocket.writeAll(fd, response.line())
            close(fd)
        }
    }

    // MARK: - Setup

    /// Makes the socket's directory exist and, when it is clawtalk's own, private (0700).
    private static func prepareDirectory(for path: String) throws(ControlSocketError) {
        let directory = (path as NSString).deletingLastPathComponent
        guard path.hasPrefix("/"), !directory.isEmpty else {
            throw .directory(path: path, message: "the control socket path must be absolute")
        }
        let exists = FileManager.default.fileExists(atPath: directory)
        guard !exists || (directory as NSString).lastPathComponent == "clawtalk" else { return }
        do {
            _ = try StateDirectory(path: directory)
        } catch {
            throw .directory(path: directory, message: "\(error)")
        }
    }

    /// Removes a socket file nobody answers on; refuses a live one or a non-socket.
    private static func removeStaleSocket(at path: String) throws(ControlSocketError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
        let probe = try UnixSocket.make()
        defer { close(probe) }
        let connected = try UnixSocket.withAddress(path) { connect(probe, $0, $1) } == 0
        if connected { throw .alreadyServing(path) }
        unlink(path)
    }

    /// Throws the system error of a failed call (`result` < 0).
    private static func check(_ result: Int32, _ operation: String) throws(ControlSocketError) {
        guard result >= 0 else { throw UnixSocket.systemError(operation) }
    }
}
