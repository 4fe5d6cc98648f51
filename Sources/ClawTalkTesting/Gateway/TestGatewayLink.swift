public import ClawTalkGateway
public import Foundation

/// The server end of one client connection, as the ``TestGateway`` sees it: inbound messages
/// and the close, plus the three things a WebSocket server can do to a client.
///
/// Implemented by ``InMemoryPeer`` (tests without sockets) and, once the loopback WebSocket
/// server exists, by its per-connection object. The inbound stream ends after `.closed` or
/// `.failed`.
public protocol TestGatewayLink: AnyObject, Sendable {
    /// Client messages (text and binary both arrive as bytes), then one `.closed`/`.failed`.
    var inbound: AsyncStream<GatewaySocketEvent> { get }
    /// Sends one text message to the client; ignored once closed.
    func send(text: String)
    /// Sends raw bytes (a binary message) to the client; ignored once closed.
    func send(bytes: Data)
    /// Closes the connection with `code` and `reason`.
    func close(code: Int, reason: String)
    /// True for a direct loopback peer (the condition for silent local pairing, protocol.md §8.3).
    var isLoopback: Bool { get }
}

extension InMemoryPeer: TestGatewayLink {
    /// In-memory pairs stand for a direct loopback connection.
    public var isLoopback: Bool { true }
}
