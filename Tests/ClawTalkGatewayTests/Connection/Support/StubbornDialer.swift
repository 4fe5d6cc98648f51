import ClawTalkGateway
import ClawTalkTesting
import Synchronization

/// Dials in-memory pairs whose client `close()` is only recorded: the socket never reports
/// its own close (models a transport that loses the close event).
final class StubbornDialer: GatewayDialer {
    final class Socket: GatewaySocket {
        let inner: InMemorySocket
        let closes = Mutex<[Int]>([])

        init(_ inner: InMemorySocket) {
            self.inner = inner
        }

        var inbound: AsyncStream<GatewaySocketEvent> { inner.inbound }
        var observedCertificateSHA256: String? { nil }

        func send(text: String) throws {
            try inner.send(text: text)
        }

        func close(code: Int, reason: String) {
            closes.withLock { $0.append(code) }
        }
    }

    let peers = Mailbox<ScriptedPeer>()
    let sockets = Mailbox<Socket>()

    func dial(_ request: GatewayDialRequest) async throws -> any GatewaySocket {
        let (client, server) = InMemorySocketPair.make()
        let socket = Socket(client)
        peers.push(ScriptedPeer(server))
        sockets.push(socket)
        return socket
    }
}
