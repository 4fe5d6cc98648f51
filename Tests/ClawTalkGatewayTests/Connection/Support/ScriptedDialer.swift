import ClawTalkGateway
import ClawTalkSupport
import ClawTalkTesting
import Synchronization

/// A dialer that hands every new connection's server end to the test as a ``ScriptedPeer``;
/// dials can be made to fail.
final class ScriptedDialer: GatewayDialer {
    struct DialFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// One peer per successful dial, in order.
    let peers = Mailbox<ScriptedPeer>()
    private let failures = Mutex<[String]>([])
    private let requests = Mutex<[GatewayDialRequest]>([])
    private let certificate: String?

    init(certificateSHA256: String? = nil) {
        certificate = certificateSHA256
    }

    /// Makes the next dial throw `message`.
    func failNextDial(_ message: String) {
        failures.locked { $0.append(message) }
    }

    /// Every dial request so far.
    var dialRequests: [GatewayDialRequest] { requests.locked { $0 } }

    func dial(_ request: GatewayDialRequest) async throws -> any GatewaySocket {
        requests.locked { $0.append(request) }
        if let failure = failures.locked({ $0.isEmpty ? nil : $0.removeFirst() }) {
            throw DialFailure(description: failure)
        }
        let (client, server) = InMemorySocketPair.make(certificateSHA256: certificate)
        peers.push(ScriptedPeer(server))
        return client
    }

    /// The next connection's peer.
    func nextPeer(within timeout: Duration = .seconds(30)) async throws -> ScriptedPeer {
        try await peers.next(within: timeout)
    }
}
