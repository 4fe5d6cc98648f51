internal import CWebSockets
import Foundation

/// Turns the C server's events (on its service thread) into ``WebSocketServerEvent``s: copies
/// the bytes and yields into an unbounded stream, never blocks.
final class WebSocketServerSink: Sendable {
    private let continuation: AsyncStream<WebSocketServerEvent>.Continuation

    init(continuation: AsyncStream<WebSocketServerEvent>.Continuation) {
        self.continuation = continuation
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
