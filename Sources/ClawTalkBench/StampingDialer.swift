import ClawTalkGateway
import ClawTalkTesting
import Foundation

/// The bench hook for `tts.clipReceived` (benchmarks.md §2): a dialer over the test gateway whose
/// sockets stamp the arrival of every inbound message that carries `audioBase64` (a `talk.speak`
/// or `tts.speak` result: the clip arrives inline, so receiving that message is receiving the
/// clip), then pass it on unchanged.
struct StampingDialer: GatewayDialer {
    let inner: TestGatewayDialer
    /// Arrival instants of clip-carrying messages, in order.
    let stamps = InstantLog()

    func dial(_ request: GatewayDialRequest) async throws -> any GatewaySocket {
        StampingSocket(inner: try await inner.dial(request), dialer: self)
    }

    func stamp(_ instant: ContinuousClock.Instant) {
        stamps.append(instant)
    }
}

/// One socket of a ``StampingDialer``.
final class StampingSocket: GatewaySocket {
    let inner: any GatewaySocket
    let inbound: AsyncStream<GatewaySocketEvent>
    private let relay: Task<Void, Never>

    private static let key = Data("\"audioBase64\"".utf8)

    init(inner: any GatewaySocket, dialer: StampingDialer) {
        self.inner = inner
        let (stream, continuation) = AsyncStream.makeStream(of: GatewaySocketEvent.self)
        inbound = stream
        let source = inner.inbound
        relay = Task {
            for await event in source {
                if case .message(let data) = event {
                    let now = ContinuousClock.now
                    if data.range(of: Self.key) != nil { dialer.stamp(now) }
                }
                continuation.yield(event)
            }
            continuation.finish()
        }
    }

    deinit {
        relay.cancel()
    }

    func send(text: String) throws {
        try inner.send(text: text)
    }

    func close(code: Int, reason: String) {
        inner.close(code: code, reason: reason)
    }

    func drop() {
        inner.drop()
    }

    var observedCertificateSHA256: String? { inner.observedCertificateSHA256 }
}
