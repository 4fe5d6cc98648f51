public import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
public import Foundation
import Synchronization

/// One client of a loopback ``WebSocketServer`` as a ``TestGatewayLink``: the listener routes
/// the server's events for this connection into ``inbound``; sends and closes go to the server.
public final class WebSocketServerLink: TestGatewayLink {
    /// Client messages, then the close.
    public let inbound: AsyncStream<GatewaySocketEvent>
    /// The request path of the WebSocket upgrade (the context path).
    public let path: String
    private let continuation: AsyncStream<GatewaySocketEvent>.Continuation
    private let server: WebSocketServer
    private let connection: WebSocketServer.ConnectionID

    init(server: WebSocketServer, connection: WebSocketServer.ConnectionID, path: String) {
        (inbound, continuation) = AsyncStream.makeStream(of: GatewaySocketEvent.self, bufferingPolicy: .unbounded)
        self.server = server
        self.connection = connection
        self.path = path
    }

    /// The server listens on 127.0.0.1 only.
    public var isLoopback: Bool { true }

    /// Queues a text message; dropped once the connection is gone.
    public func send(text: String) {
        try? server.send(text: text, to: connection)
    }

    /// Queues a binary message; dropped once the connection is gone.
    public func send(bytes: Data) {
        try? server.send(binary: bytes, to: connection)
    }

    /// Starts the closing handshake.
    public func close(code: Int, reason: String) {
        try? server.close(connection, code: code, reason: reason)
    }

    func deliver(_ event: GatewaySocketEvent) {
        continuation.yield(event)
        if case .message = event { return }
        continuation.finish()
    }
}

/// A running loopback listener: the server and the task routing its events to links.
final class TestGatewayListener: Sendable {
    let server: WebSocketServer
    let url: String
    private let links = Mutex<[WebSocketServer.ConnectionID: WebSocketServerLink]>([:])

    init(server: WebSocketServer, url: String) {
        self.server = server
        self.url = url
    }

    /// Routes server events until the server stops; new connections go to `gateway`.
    func run(_ gateway: TestGateway) async {
        for await event in server.events {
            switch event {
            case .opened(let id, let path):
                let link = WebSocketServerLink(server: server, connection: id, path: path)
                links.locked { $0[id] = link }
                await gateway.accept(link)
            case .message(let id, let data, _):
                links.locked { $0[id] }?.deliver(.message(data))
            case .closed(let id, let code, let reason):
                links.locked { $0.removeValue(forKey: id) }?.deliver(.closed(code: code, reason: reason))
            }
        }
        let remaining = links.locked { links in
            defer { links.removeAll() }
            return Array(links.values)
        }
        for link in remaining { link.deliver(.closed(code: nil, reason: "listener stopped")) }
    }
}

extension TestGateway {
    /// Serves real WebSocket clients on 127.0.0.1:`port` (0 = a free port) with the same logic
    /// as in-memory links; `tls` (PEM certificate and key paths) makes it `wss://`. Returns
    /// ``url``. The server's own inbound limit is generous; the 64 KiB pre-handshake and
    /// `policy.maxPayload` limits are enforced by the gateway (close 1009).
    /// - Throws: ``TestGatewayError/listenFailed(_:)``.
    @discardableResult
    public func listen(port: Int = 0, tls: (certificatePath: String, keyPath: String)? = nil) throws(TestGatewayError)
        -> String
    {
        if let listener { return listener.url }
        let joinCodes = self.joinCodes
        let server = WebSocketServer(
            maxMessageBytes: max(configuration.policy.maxPayload, 65_536) * 2,
            httpHandler: { joinCodes.answer($0) })
        do {
            try server.start(port: port, tls: tls)
        } catch {
            throw .listenFailed("\(error)")
        }
        let started = TestGatewayListener(
            server: server, url: "\(tls == nil ? "ws" : "wss")://127.0.0.1:\(server.port)")
        listener = started
        children.spawn { await started.run(self) }
        return started.url
    }

    /// `ws://127.0.0.1:<port>` (or `wss://`) while listening, else nil.
    public var url: String? { listener?.url }

    /// Stops the listener; its connections end without a closing handshake.
    public func stopListening() {
        listener?.server.stop()
        listener = nil
    }
}
