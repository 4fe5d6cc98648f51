internal import CWebSockets
import Foundation

/// Turns the C server's events (on its service thread) into ``WebSocketServerEvent``s: copies
/// the bytes and yields into an unbounded stream, never blocks.
final class WebSocketServerSink: Sendable {
    private let continuation: AsyncStream<WebSocketServerEvent>.Continuation
    private let httpHandler: (@Sendable (HTTPServerRequest) -> HTTPServerReply?)?

    init(
        continuation: AsyncStream<WebSocketServerEvent>.Continuation,
        httpHandler: (@Sendable (HTTPServerRequest) -> HTTPServerReply?)? = nil
    ) {
        self.continuation = continuation
        self.httpHandler = httpHandler
    }

    /// True when plain HTTP requests go to a handler.
    var hasHTTPHandler: Bool { httpHandler != nil }

    /// The C `cws_http_fn`: `user` is the sink. Copies the reply into `body` (cut to `cap`).
    static let answerHTTP: cws_http_fn = { user, method, path, hasQuery, body, cap, bodyLength in
        guard let user, let body, let bodyLength else { return 0 }
        let sink = Unmanaged<WebSocketServerSink>.fromOpaque(user).takeUnretainedValue()
        let request = HTTPServerRequest(
            method: method.map { String(cString: $0) } ?? "OTHER", path: path.map { String(cString: $0) } ?? "",
            hasQuery: hasQuery != 0)
        guard let reply = sink.httpHandler?(request) else { return 0 }
        let count = min(reply.body.count, cap)
        reply.body.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { UnsafeMutableRawPointer(body).copyMemory(from: base, byteCount: count) }
        }
        bodyLength.pointee = count
        return Int32(clamping: reply.status)
    }

    /// One C event; called on the service thread.
    func handle(_ event: cws_event) {
        let id = WebSocketServer.ConnectionID(rawValue: event.conn_id)
        switch event.kind {
        case CWS_EVENT_CONNECTED:
            let path = event.text.map { String(cString: $0) } ?? ""
            continuation.yield(.opened(id, path: path))
        case CWS_EVENT_MESSAGE:
            let data = event.data.map { Data(bytes: $0, count: event.len) } ?? Data()
            continuation.yield(.message(id, data, isBinary: event.is_binary != 0))
        case CWS_EVENT_CLOSED:
            let code = event.close_code == 0 ? nil : Int(event.close_code)
            let reason = event.text.map { String(cString: $0) } ?? ""
            continuation.yield(.closed(id, code: code, reason: reason))
        default:
            break
        }
    }

    /// Ends the stream once the C server is destroyed.
    func finish() {
        continuation.finish()
    }
}
