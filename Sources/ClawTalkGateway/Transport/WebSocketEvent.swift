public import Foundation

/// What a connected ``WebSocketClient`` reports, in order; `.closed` or `.error` is the last.
public enum WebSocketEvent: Sendable, Hashable {
    /// One complete inbound message (text arrives as its UTF-8 bytes).
    case message(Data, isBinary: Bool)
    /// The socket closed: the close code (nil when none was sent) and the reason.
    case closed(code: Int?, reason: String)
    /// The connection attempt failed (the stream ends after this).
    case error(String)
}
