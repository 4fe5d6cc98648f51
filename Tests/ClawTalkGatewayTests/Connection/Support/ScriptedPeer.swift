import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation

/// The server end of one in-memory connection, speaking real gateway frames.
final class ScriptedPeer: Sendable {
    enum Failure: Error, CustomStringConvertible {
        case unexpected(String)
        var description: String {
            switch self {
            case .unexpected(let what): "unexpected: \(what)"
            }
        }
    }

    static let challengeTs: Int64 = 1_754_640_000_000

    let peer: InMemoryPeer
    /// What the client sent, then its close.
    let inbox = Mailbox<GatewaySocketEvent>()

    init(_ peer: InMemoryPeer) {
        self.peer = peer
        let inbox = inbox
        Task {
            for await event in peer.inbound { inbox.push(event) }
            inbox.finish()
        }
    }

    func send(_ json: WireJSON) {
        peer.send(text: json.encodedString())
    }

    func sendEvent(_ name: String, payload: WireJSON? = nil, seq: Int? = nil) {
        peer.send(text: EventFrame(event: name, payload: payload, seq: seq).encodedText())
    }

    func sendChallenge(nonce: String = "  nonce-abc \n", ts: Int64? = ScriptedPeer.challengeTs) {
        var payload: WireObject = ["nonce": .string(nonce)]
        if let ts { payload["ts"] = .integer(ts) }
        sendEvent("connect.challenge", payload: .object(payload))
    }

    func respond(to request: RequestFrame, payload: WireJSON? = nil) {
        peer.send(text: ResponseFrame(id: request.id, ok: true, payload: payload).encodedText())
    }

    func fail(_ request: RequestFrame, error: ErrorShape) {
        peer.send(text: ResponseFrame(id: request.id, ok: false, error: error).encodedText())
    }

    func close(code: Int, reason: String = "") {
        peer.close(code: code, reason: reason)
    }

    /// The next thing the client sent, which must be a request.
    func nextRequest(within timeout: Duration = .seconds(30)) async throws -> RequestFrame {
        let event = try await inbox.next(within: timeout)
        guard case .message(let data) = event else { throw Failure.unexpected("\(event) instead of a request") }
        guard case .request(let request) = try GatewayFrame.decode(data) else {
            throw Failure.unexpected("a non-request frame")
        }
        return request
    }

    /// The next request, skipping requests of other methods (e.g. presence pings).
    func nextRequest(method: String, within timeout: Duration = .seconds(30)) async throws -> RequestFrame {
        while true {
            let request = try await nextRequest(within: timeout)
            if request.method == method { return request }
        }
    }

    /// Skips messages until the client's close; returns its code and reason.
    func nextClose(within timeout: Duration = .seconds(30)) async throws -> (code: Int?, reason: String) {
        while true {
            switch try await inbox.next(within: timeout) {
            case .message: continue
            case .closed(let code, let reason): return (code, reason)
            case .failed(let reason): return (nil, reason)
            }
        }
    }

    /// Challenge, then the client's `connect` (returned), then `hello`.
    @discardableResult
    func acceptConnect(hello: WireJSON = TestHello.payload()) async throws -> RequestFrame {
        sendChallenge()
        let connect = try await nextRequest()
        guard connect.method == "connect" else { throw Failure.unexpected("first request \(connect.method)") }
        respond(to: connect, payload: hello)
        return connect
    }

    /// Challenge, then the client's `connect` (returned), then `ok:false` with `error` and a close.
    @discardableResult
    func rejectConnect(_ error: ErrorShape, closeCode: Int = 1008) async throws -> RequestFrame {
        sendChallenge()
        let connect = try await nextRequest()
        fail(connect, error: error)
        close(code: closeCode, reason: error.message)
        return connect
    }
}

/// `hello-ok` payloads.
enum TestHello {
    static func payload(
        tickIntervalMs: Int = 30_000, maxPayload: Int = 26_214_400, serverVersion: String = "2026.7.1",
        methods: [String] = [], role: String = "node", scopes: [String] = [], deviceToken: String? = nil,
        issuedAtMs: Int64? = nil, deviceTokens: [WireJSON]? = nil
    ) -> WireJSON {
        var auth: WireObject = ["role": .string(role), "scopes": .array(scopes.map(WireJSON.string))]
        if let deviceToken { auth["deviceToken"] = .string(deviceToken) }
        if let issuedAtMs { auth["issuedAtMs"] = .integer(issuedAtMs) }
        if let deviceTokens { auth["deviceTokens"] = .array(deviceTokens) }
        return [
            "type": "hello-ok", "protocol": 4,
            "server": ["version": .string(serverVersion), "connId": "conn-1"],
            "features": ["methods": .array(methods.map(WireJSON.string)), "events": []],
            "snapshot": ["presence": [], "health": [:], "stateVersion": ["presence": 0, "health": 0], "uptimeMs": 1],
            "auth": .object(auth),
            "policy": [
                "maxPayload": .integer(Int64(maxPayload)), "maxBufferedBytes": 52_428_800,
                "tickIntervalMs": .integer(Int64(tickIntervalMs)),
            ],
        ]
    }
}
