import ClawTalkGateway
import Foundation
import Testing

@Suite("WebSocketDialer: the GatewaySocket seam over libwebsockets", .timeLimit(.minutes(1)))
struct WebSocketDialerTests {
    @Test func dialedSocketsCarryMessagesAndCloseCodes() async throws {
        let server = try LoopbackServer(echo: true)
        let socket = try await WebSocketDialer().dial(GatewayDialRequest(url: server.url("/gw"), timeout: .seconds(30)))
        #expect(socket.observedCertificateSHA256 == nil)
        try socket.send(text: "hello")
        var iterator = socket.inbound.makeAsyncIterator()
        #expect(await iterator.next() == .message(Data("hello".utf8)))
        let id = try await server.opened()
        try server.server.close(id, code: 1012, reason: "service restart")
        #expect(await iterator.next() == .closed(code: 1012, reason: "service restart"))
        #expect(await iterator.next() == nil)
    }

    @Test func aClosedPortFailsTheDial() async throws {
        let server = try LoopbackServer(echo: false)
        let port = server.port
        server.server.stop()
        await #expect(throws: TransportError.self) {
            _ = try await WebSocketDialer().dial(
                GatewayDialRequest(url: "ws://127.0.0.1:\(port)/", timeout: .seconds(3)))
        }
    }
}
