import Dispatch
import Foundation

/// The `clawtalk ptt …` side of the control socket: connects, sends one request line and reads
/// the answer (blocking, on a dispatch thread, never on the caller's task).
public enum ControlSocketClient {
    /// Sends `command` to the service listening on `path` and returns its answer. `timeout`
    /// bounds the wait for the answer (`once` answers when the utterance has ended).
    public static func send(
        _ command: ControlRequest.Command, to path: String, timeout: Duration = .seconds(60)
    ) async throws(ControlSocketError) -> ControlResponse {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<ControlResponse, ControlSocketError>, Never>) in
            DispatchQueue.global().async {
                continuation.resume(
                    returning: Result { () throws(ControlSocketError) in
                        try exchange(ControlRequest(command: command), path: path, timeout: timeout)
                    })
            }
        }
        return try result.get()
    }

    /// One blocking request/response exchange.
    public static func exchange(
        _ request: ControlRequest, path: String, timeout: Duration
    ) throws(ControlSocketError) -> ControlResponse {
        let fd = try UnixSocket.make()
        defer { close(fd) }
        let connected = try UnixSocket.withAddress(path) { connect(fd, $0, $1) }
        if connected != 0 {
            let code = errno
            if code == ENOENT || code == ECONNREFUSED { throw .notRunning(path) }
            throw UnixSocket.systemError("connect \(path)", code: code)
        }
        UnixSocket.setTimeout(fd, option: SO_SNDTIMEO, .seconds(2))
        UnixSocket.setTimeout(fd, option: SO_RCVTIMEO, timeout)
        // A server that refuses this peer answers and closes without reading the request, so
        // the write may fail (EPIPE) with the refusal already waiting: read it before giving up.
        let sent = UnixSocket.writeAll(fd, request.line())
        let sendError = sent ? nil : UnixSocket.systemError("send")
        let (line, complete) = UnixSocket.readLine(fd)
        if let sendError, line.isEmpty { throw sendError }
        if line.isEmpty, !complete {
            if errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut }
            throw .badAnswer
        }
        guard let response = ControlResponse.parse(line) else { throw .badAnswer }
        return response
    }
}
