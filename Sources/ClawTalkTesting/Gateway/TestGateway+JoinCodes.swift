import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import Foundation
import Synchronization

/// The gateway's join codes (protocol.md §9.1), answered on the listening port the way
/// upstream's `src/gateway/device-pairing-join-http.ts` does: a `GET /…/j/<code>` without a
/// query burns a live code and returns its setup payload (`200`, JSON); an unknown, used or
/// expired code, another method or a query gets `404 {"error":"not_found"}`. Every other
/// plain-HTTP path is `404` too. Thread-safe: the server thread reads it.
public final class TestJoinCodes: Sendable {
    private struct Entry {
        var payload: [UInt8]
        var expiresAtMs: Int64
    }

    private let clock: any TestGatewayClock
    private let entries = Mutex<[String: Entry]>([:])
    private let served = Atomic<Int>(0)

    init(clock: any TestGatewayClock) {
        self.clock = clock
    }

    /// How many setup payloads were handed out.
    public var redeemedCount: Int { served.load(ordering: .acquiring) }

    /// Registers `payload` (setup-code JSON) under a new 22-character shortcode.
    func register(payload: [UInt8], expiresAtMs: Int64) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let code = Base64URL.encode(bytes)
        entries.locked { $0[code] = Entry(payload: payload, expiresAtMs: expiresAtMs) }
        return code
    }

    /// The answer to one plain HTTP request.
    func answer(_ request: HTTPServerRequest) -> HTTPServerReply {
        let notFound = HTTPServerReply(status: 404, body: Array(#"{"error":"not_found"}"#.utf8))
        guard let marker = request.path.range(of: "/j/", options: .backwards) else { return notFound }
        let code = String(request.path[marker.upperBound...])
        guard request.method == "GET", !request.hasQuery else { return notFound }
        let now = clock.nowMs()
        let entry = entries.locked { entries -> Entry? in
            entries = entries.filter { $0.value.expiresAtMs > now }
            return entries.removeValue(forKey: code)
        }
        guard let entry else { return notFound }
        served.add(1, ordering: .releasing)
        return HTTPServerReply(status: 200, body: entry.payload)
    }
}

extension TestGateway {
    /// Mints a single-use join code for a freshly minted bootstrap token (what `openclaw
    /// devices join-code` does) and returns the join URL on the listening port,
    /// `http(s)://127.0.0.1:<port>/j/<code>`. The setup payload's `url` is `gatewayURL`
    /// (default: the listener's URL), with `tlsFingerprint` when given.
    /// - Parameter lifetimeMs: until the code (and the payload's `expiresAtMs`) expires.
    /// - Precondition: ``listen(port:tls:)`` was called.
    public func mintJoinURL(
        gatewayURL: String? = nil, tlsFingerprint: String? = nil, lifetimeMs: Int64? = nil
    ) -> String {
        guard let listener else { preconditionFailure("mintJoinURL needs listen() first") }
        let lifetime = lifetimeMs ?? configuration.bootstrapTokenLifetimeMs
        var object: WireObject = [
            "url": .string(gatewayURL ?? listener.url),
            "bootstrapToken": .string(mintBootstrapToken()),
            "expiresAtMs": .integer(nowMs + lifetime),
        ]
        if let tlsFingerprint { object["tlsFingerprint"] = .string(tlsFingerprint) }
        let code = joinCodes.register(
            payload: Array(WireJSON.object(object).encodedString().utf8), expiresAtMs: nowMs + lifetime)
        let base = listener.url.replacingOccurrences(of: "wss://", with: "https://")
            .replacingOccurrences(of: "ws://", with: "http://")
        return "\(base)/j/\(code)"
    }
}
