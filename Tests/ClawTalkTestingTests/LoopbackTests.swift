import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// A real WebSocket client against ``TestGateway/listen(port:tls:)`` on loopback: the same
/// gateway logic over libwebsockets (plain and TLS with a self-signed certificate).
@Suite(.timeLimit(.minutes(1))) struct LoopbackTests {
    /// Reads JSON frames from a real client.
    struct Reader {
        var iterator: AsyncStream<WebSocketEvent>.Iterator

        init(_ client: WebSocketClient) {
            iterator = client.events.makeAsyncIterator()
        }

        mutating func frame() async throws -> WireJSON {
            guard case .message(let data, _) = await iterator.next() else {
                throw ClientError(description: "expected a message")
            }
            return try WireJSON(parsing: data)
        }

        /// The next frame with `type` and (for events) `event`, skipping others.
        mutating func next(type: String, event: String? = nil) async throws -> WireJSON {
            while true {
                let frame = try await frame()
                if frame["type"]?.stringValue == type && (event == nil || frame["event"]?.stringValue == event) {
                    return frame
                }
            }
        }

        mutating func closed() async -> (code: Int?, reason: String)? {
            while let event = await iterator.next() {
                if case .closed(let code, let reason) = event { return (code, reason) }
            }
            return nil
        }
    }

    func connectedClient(_ url: String, pin: String? = nil) async throws -> WebSocketClient {
        let client = try WebSocketClient(configuration: WebSocketConfiguration(url: url, tlsPinSHA256: pin))
        try await client.connect(timeout: .seconds(30))
        return client
    }

    @Test func aNodeHandshakesInvokesAndIsShutDownOverARealSocket() async throws {
        let (gateway, _) = Fixture.gateway()
        let url = try await gateway.listen()
        #expect(url.hasPrefix("ws://127.0.0.1:"))
        #expect(await gateway.url == url)
        await gateway.pairDevice(
            publicKey: Fixture.identity.publicKeyBase64URL, approvedCaps: ["talk"],
            approvedCommands: Set(Fixture.talkCommands))
        let client = try await connectedClient(url + "/openclaw-gw")
        var reader = Reader(client)
        let challenge = try await reader.next(type: "event", event: "connect.challenge")
        let nonce = try #require(challenge["payload"]?["nonce"]?.stringValue)
        let params = try ConnectBuilder().params(nonce: nonce, ts: Fixture.time)
        try client.send(text: RequestFrame(id: "c-1", method: "connect", params: params).encodedText())
        let hello = try await reader.next(type: "res")
        #expect(hello["ok"] == true)
        #expect(hello["payload"]?["type"] == "hello-ok")

        let invoke = Task { await gateway.invoke(nodeId: Fixture.deviceId, command: "talk.ptt.start") }
        let request = try #require(try await reader.next(type: "event", event: "node.invoke.request")["payload"])
        let result = NodeInvokeResult(
            id: request["id"]?.stringValue ?? "", nodeId: Fixture.deviceId, ok: true, payloadJSON: #"{"captureId":"c"}"#
        )
        try client.send(text: try result.requestFrame(id: "r-1").encodedText())
        #expect(await invoke.value == .ok(payloadJSON: #"{"captureId":"c"}"#, payload: nil))

        await gateway.shutdown(reason: "test", restartExpectedMs: .ms(500))
        let shutdown = try await reader.next(type: "event", event: "shutdown")
        #expect(shutdown["payload"]?["restartExpectedMs"] == 500)
        let closed = await reader.closed()
        #expect(closed?.code == 1012)
        #expect(closed?.reason == "service restart")
        await gateway.stopListening()
        #expect(await gateway.url == nil)
    }

    @Test func theGatewayEnforcesThePreauthLimitOnRealSockets() async throws {
        let (gateway, _) = Fixture.gateway()
        let url = try await gateway.listen()
        let client = try await connectedClient(url)
        var reader = Reader(client)
        _ = try await reader.next(type: "event", event: "connect.challenge")
        try client.send(text: String(repeating: "x", count: 70_000))
        let closed = await reader.closed()
        #expect(closed?.code == 1009)
        #expect(closed?.reason == "preauth payload too large")
        await gateway.stopListening()
    }

    @Test func wssWithASelfSignedCertificateConnectsOnlyWithTheMatchingPin() async throws {  // 36 (gateway side)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ct-tg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("c.pem").path
        let key = directory.appendingPathComponent("k.pem").path
        try shellOutput(
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost"
                + " -days 1 -keyout \(key) -out \(cert)")
        let pin = String(try shellOutput("openssl x509 -in \(cert) -outform DER | sha256sum").prefix(64))
        #expect(pin.count == 64)

        let (gateway, _) = Fixture.gateway()
        let url = try await gateway.listen(tls: (certificatePath: cert, keyPath: key))
        #expect(url.hasPrefix("wss://127.0.0.1:"))
        let client = try await connectedClient(url, pin: pin)
        var reader = Reader(client)
        #expect(try await reader.next(type: "event", event: "connect.challenge")["payload"]?["nonce"] != nil)
        #expect(client.observedCertificateSHA256 == pin)
        client.close()

        let wrongPin = String(repeating: "0", count: 64)
        await #expect(throws: TransportError.self) { _ = try await connectedClient(url, pin: wrongPin) }
        await gateway.stopListening()
    }
}
