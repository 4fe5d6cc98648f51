import Foundation

/// The production ``GatewayDialer``: a libwebsockets client per socket, with the 15 s WebSocket
/// ping (protocol.md §4.3), the receive limit of the request and leaf-certificate pinning (protocol.md §17.1).
public struct WebSocketDialer: GatewayDialer {
    /// Seconds between WebSocket pings (NAT keepalive).
    public var pingIntervalSeconds: Int
    /// A CA bundle to trust instead of the system store (private CAs); nil = system trust.
    public var trustedRootsPath: String?

    /// Creates a dialer with the spec's 15 s ping.
    public init(pingIntervalSeconds: Int = 15, trustedRootsPath: String? = nil) {
        self.pingIntervalSeconds = pingIntervalSeconds
        self.trustedRootsPath = trustedRootsPath
    }

    /// Opens and upgrades one socket; throws ``TransportError`` (typed pin mismatch included).
    public func dial(_ request: GatewayDialRequest) async throws -> any GatewaySocket {
        var configuration = WebSocketConfiguration(url: request.url)
        configuration.maxMessageBytes = request.maxMessageBytes
        configuration.pingIntervalSeconds = pingIntervalSeconds
        configuration.tlsPinSHA256 = request.tlsPinSHA256
        configuration.trustedRootsPath = trustedRootsPath
        let client = try WebSocketClient(configuration: configuration)
        do {
            try await client.connect(timeout: request.timeout)
        } catch {
            client.shutdown()
            throw error
        }
        return WebSocketGatewaySocket(client: client)
    }
}

/// ``GatewaySocket`` over a connected ``WebSocketClient``.
final class WebSocketGatewaySocket: GatewaySocket {
    let inbound: AsyncStream<GatewaySocketEvent>
    private let client: WebSocketClient
    private let pump: Task<Void, Never>

    init(client: WebSocketClient) {
        self.client = client
        let (stream, continuation) = AsyncStream.makeStream(of: GatewaySocketEvent.self)
        inbound = stream
        pump = Task {
            for await event in client.events {
                switch event {
                case .message(let data, _):
                    continuation.yield(.message(data))
                case .closed(let code, let reason):
                    continuation.yield(.closed(code: code, reason: reason))
                    continuation.finish()
                    return
                case .error(let message):
                    continuation.yield(.failed(message))
                    continuation.finish()
                    return
                }
            }
            continuation.finish()
        }
    }

    deinit {
        pump.cancel()
        client.shutdown()
    }

    var observedCertificateSHA256: String? { client.observedCertificateSHA256 }

    func send(text: String) throws {
        try client.send(text: text)
    }

    func close(code: Int, reason: String) {
        client.close(code: code, reason: reason)
    }

    func drop() {
        client.shutdown()
    }
}
