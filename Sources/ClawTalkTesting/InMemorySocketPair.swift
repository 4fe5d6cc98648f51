public import ClawTalkGateway
import ClawTalkSupport
public import Foundation
import Synchronization

/// Two connected in-memory sockets: what one side sends, the other receives, in order.
///
/// The client side is a ``GatewaySocket`` the real connection code uses; the server side is an
/// ``InMemoryPeer`` the test gateway drives. Closing either side delivers `.closed(code, reason)`
/// to both and ends both streams, like a WebSocket close handshake.
public enum InMemorySocketPair {
    /// A fresh connected pair.
    public static func make(certificateSHA256: String? = nil) -> (client: InMemorySocket, server: InMemoryPeer) {
        let toClient = AsyncStream.makeStream(of: GatewaySocketEvent.self, bufferingPolicy: .unbounded)
        let toServer = AsyncStream.makeStream(of: GatewaySocketEvent.self, bufferingPolicy: .unbounded)
        let state = SharedCloseState()
        let client = InMemorySocket(
            inbound: toClient.stream, outbound: toServer.continuation, ownInbound: toClient.continuation,
            state: state, certificate: certificateSHA256)
        let server = InMemoryPeer(
            inbound: toServer.stream, outbound: toClient.continuation, ownInbound: toServer.continuation,
            state: state)
        return (client, server)
    }
}

/// Close bookkeeping shared by both ends of a pair.
final class SharedCloseState: Sendable {
    private let closed = Mutex(false)

    /// True exactly once: the first close wins.
    func markClosed() -> Bool {
        closed.locked { wasClosed in
            defer { wasClosed = true }
            return !wasClosed
        }
    }

    var isClosed: Bool { closed.locked { $0 } }
}

/// The client end of an ``InMemorySocketPair``.
public final class InMemorySocket: GatewaySocket {
    /// Messages from the server end, then the close.
    public let inbound: AsyncStream<GatewaySocketEvent>
    /// The certificate fingerprint this fake pretends to have seen (nil = plain ws://).
    public let observedCertificateSHA256: String?
    private let outbound: AsyncStream<GatewaySocketEvent>.Continuation
    private let ownInbound: AsyncStream<GatewaySocketEvent>.Continuation
    private let state: SharedCloseState

    init(
        inbound: AsyncStream<GatewaySocketEvent>, outbound: AsyncStream<GatewaySocketEvent>.Continuation,
        ownInbound: AsyncStream<GatewaySocketEvent>.Continuation, state: SharedCloseState, certificate: String?
    ) {
        self.inbound = inbound
        self.outbound = outbound
        self.ownInbound = ownInbound
        self.state = state
        self.observedCertificateSHA256 = certificate
    }

    /// Delivers `text` to the server end; throws once the pair is closed.
    public func send(text: String) throws {
        guard !state.isClosed else { throw InMemorySocketError.closed }
        outbound.yield(.message(Data(text.utf8)))
    }

    /// Closes both ends with `code` and `reason`.
    public func close(code: Int, reason: String) {
        guard state.markClosed() else { return }
        for continuation in [outbound, ownInbound] {
            continuation.yield(.closed(code: code, reason: reason))
            continuation.finish()
        }
    }

    /// Drops the connection without a close frame: the server end sees `.failed` (what a real
    /// gateway reports as 1006). No-op once either end closed.
    public func drop() {
        guard state.markClosed() else { return }
        outbound.yield(.failed("connection dropped"))
        outbound.finish()
        ownInbound.yield(.closed(code: nil, reason: "connection dropped"))
        ownInbound.finish()
    }
}

/// The server end of an ``InMemorySocketPair``, driven by a test gateway.
public final class InMemoryPeer: Sendable {
    /// Messages from the client end, then the close.
    public let inbound: AsyncStream<GatewaySocketEvent>
    private let outbound: AsyncStream<GatewaySocketEvent>.Continuation
    private let ownInbound: AsyncStream<GatewaySocketEvent>.Continuation
    private let state: SharedCloseState

    init(
        inbound: AsyncStream<GatewaySocketEvent>, outbound: AsyncStream<GatewaySocketEvent>.Continuation,
        ownInbound: AsyncStream<GatewaySocketEvent>.Continuation, state: SharedCloseState
    ) {
        self.inbound = inbound
        self.outbound = outbound
        self.ownInbound = ownInbound
        self.state = state
    }

    /// Delivers a text message to the client; ignored once closed.
    public func send(text: String) {
        send(bytes: Data(text.utf8))
    }

    /// Delivers raw bytes (e.g. a binary frame or a malformed message) to the client.
    public func send(bytes: Data) {
        guard !state.isClosed else { return }
        outbound.yield(.message(bytes))
    }

    /// Closes both ends with `code` and `reason`.
    public func close(code: Int, reason: String) {
        guard state.markClosed() else { return }
        for continuation in [outbound, ownInbound] {
            continuation.yield(.closed(code: code, reason: reason))
            continuation.finish()
        }
    }

    /// Drops the connection without a close frame (a reset): the client sees `.failed`.
    public func reset(reason: String = "connection reset") {
        guard state.markClosed() else { return }
        outbound.yield(.failed(reason))
        outbound.finish()
        ownInbound.yield(.closed(code: nil, reason: reason))
        ownInbound.finish()
    }
}

/// Errors of the in-memory transport.
public enum InMemorySocketError: Error, Equatable, CustomStringConvertible {
    /// The pair was closed.
    case closed

    /// One line.
    public var description: String { "in-memory socket is closed" }
}
