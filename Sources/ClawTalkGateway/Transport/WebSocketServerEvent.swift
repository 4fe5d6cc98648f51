public import Foundation

/// What a ``WebSocketServer`` reports, across all its connections, in order.
public enum WebSocketServerEvent: Sendable, Hashable {
    /// A client finished the WebSocket upgrade on `path` (the request path, query removed).
    case opened(WebSocketServer.ConnectionID, path: String)
    /// One complete message from a client.
    case message(WebSocketServer.ConnectionID, Data, isBinary: Bool)
    /// A connection ended: close code (nil when none was sent) and reason.
    case closed(WebSocketServer.ConnectionID, code: Int?, reason: String)
}
