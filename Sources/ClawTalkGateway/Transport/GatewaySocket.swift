public import Foundation

/// One open message socket to a gateway: the seam between the connection logic and the
/// WebSocket library, so the same connection code runs over libwebsockets on loopback or the
/// network, and over in-memory pairs in tests.
///
/// Text and binary inbound messages are both delivered as bytes (the gateway may send either).
/// The stream ends after `.closed` or `.failed`; nothing arrives after that.
public protocol GatewaySocket: AnyObject, Sendable {
    /// Inbound messages, then exactly one `.closed` or `.failed`.
    var inbound: AsyncStream<GatewaySocketEvent> { get }
    /// Queues one text message; throws when the socket is no longer open.
    func send(text: String) throws
    /// Starts a graceful close with `code` (1000 normal, 4000 watchdog, …): the close frame is
    /// queued behind the messages already sent; never blocks.
    func close(code: Int, reason: String)
    /// Drops the connection at once, without a closing handshake (or after one the peer did not
    /// finish in time). No-op once the socket has ended; ``inbound`` ends.
    func drop()
    /// SHA-256 (lowercase hex) of the peer's leaf certificate, for `wss://`; nil otherwise.
    var observedCertificateSHA256: String? { get }
}

/// What a ``GatewaySocket`` reports.
public enum GatewaySocketEvent: Sendable, Equatable {
    /// One complete inbound message (text or binary).
    case message(Data)
    /// The socket closed; `code` is the peer's or local close code when known.
    case closed(code: Int?, reason: String)
    /// The socket failed without a close frame (reset, TLS failure, oversized message, …).
    case failed(String)
}

/// Opens sockets: libwebsockets in production, in-memory pairs in tests.
public protocol GatewayDialer: Sendable {
    /// Opens a socket to `request.url`, or throws when it cannot be opened within `request.timeout`.
    func dial(_ request: GatewayDialRequest) async throws -> any GatewaySocket
}

/// Everything needed to open one gateway socket.
public struct GatewayDialRequest: Sendable, Equatable {
    /// `ws://` or `wss://` URL, context path included.
    public var url: String
    /// Leaf-certificate SHA-256 pin (lowercase hex), or nil for system trust.
    public var tlsPinSHA256: String?
    /// Largest inbound message accepted (≥ the gateway's `policy.maxPayload`; 25 MiB before hello-ok).
    public var maxMessageBytes: Int
    /// Limit for the TCP + TLS + WebSocket handshake.
    public var timeout: Duration

    /// Creates a request; the defaults suit a first connect.
    public init(
        url: String, tlsPinSHA256: String? = nil, maxMessageBytes: Int = 26_214_400,
        timeout: Duration = .seconds(30)
    ) {
        self.url = url
        self.tlsPinSHA256 = tlsPinSHA256
        self.maxMessageBytes = maxMessageBytes
        self.timeout = timeout
    }
}
