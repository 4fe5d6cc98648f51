import ClawTalkGateway
import ClawTalkSupport
import ClawTalkTesting
import Synchronization

/// Dials in-memory pairs whose client `close()` is only recorded: the socket never reports
/// its own close (models a transport that loses the close event, or a peer that never answers
/// the closing handshake) until the test calls `answer()`. `drop()` is recorded too, then
/// really drops the pair.
final class StubbornDialer: GatewayDialer {
    /// What the connection did to a socket, in order.
    enum Action: Equatable, Sendable {
        case close(code: Int, reason: String)
        case answered
        case drop
    }

    final class Socket: GatewaySocket {
        let inner: InMemorySocket
        let actions = Mutex<[Action]>([])

        init(_ inner: InMemorySocket) {
            self.inner = inner
        }

        var inbound: AsyncStream<GatewaySocketEvent> { inner.inbound }
        var observedCertificateSHA256: String? { nil }

        /// Everything recorded so far.
        var recorded: [Action] { actions.locked { $0 } }

        /// The close codes asked for, in order.
        var closes: [Int] {
            actions.locked { $0.compactMap { if case .close(let code, _) = $0 { code } else { nil } } }
        }

        func send(text: String) throws {
            try inner.send(text: text)
        }

        func close(code: Int, reason: String) {
            actions.locked { $0.append(.close(code: code, reason: reason)) }
        }

        /// The peer answers the last close: both ends see `.closed` with its code and reason.
        func answer() {
            let last = actions.locked { actions -> Action? in
                actions.append(.answered)
                return actions.last { if case .close = $0 { true } else { false } }
            }
            guard case .close(let code, let reason) = last else { return }
            inner.close(code: code, reason: reason)
        }

        func drop() {
            actions.locked { $0.append(.drop) }
            inner.drop()
        }
    }

    let peers = Mailbox<ScriptedPeer>()
    let sockets = Mailbox<Socket>()
    private let last = Mutex<Socket?>(nil)

    /// The socket of the latest dial, whether or not the test took it from ``sockets``.
    var newest: Socket? { last.locked { $0 } }

    func dial(_ request: GatewayDialRequest) async throws -> any GatewaySocket {
        let (client, server) = InMemorySocketPair.make()
        let socket = Socket(client)
        last.locked { $0 = socket }
        peers.push(ScriptedPeer(server))
        sockets.push(socket)
        return socket
    }
}
