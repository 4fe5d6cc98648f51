import ClawTalkGateway
import Foundation
import Testing

@Suite("WebSocket over loopback", .timeLimit(.minutes(1)))
struct WebSocketLoopbackTests {
    @Test func echoesTextAndAcceptsBinaryInbound() async throws {
        let server = try LoopbackServer(echo: true)
        let client = try ConnectedClient(.init(url: server.url("/openclaw-gw")))
        try await client.connect()
        let id = try await server.opened()
        #expect(server.recorder.events.contains(.opened(id, path: "/openclaw-gw")))

        try client.client.send(text: #"{"type":"req","id":"1","method":"ping"}"#)
        let echo = try await client.message(1)
        #expect(echo.isBinary == false)
        #expect(String(decoding: echo.data, as: UTF8.self) == #"{"type":"req","id":"1","method":"ping"}"#)

        let binary = Data(#"{"type":"event","event":"tick"}"#.utf8) + Data([0x00, 0xff])
        try server.server.send(binary: binary, to: id)
        let inbound = try await client.message(2)
        #expect(inbound.isBinary)
        #expect(inbound.data == binary)

        try client.client.send(text: "")  // an empty message is still a message
        #expect(try await client.message(3).data.isEmpty)
        #expect(client.client.statistics.messagesReceived == 3)
        client.client.close()
        _ = try await client.closed()
    }

    @Test func twentyMebibyteMessagesArriveIntactBothWays() async throws {
        let server = try LoopbackServer(echo: true)
        let client = try ConnectedClient(.init(url: server.url()))
        try await client.connect()
        let id = try await server.opened()
        let big = patternText(count: 20 * 1024 * 1024)

        try client.client.send(text: big)  // client -> server in 64 KiB fragments
        let atServer = try await server.recorder.first("the big message at the server", timeout: .seconds(20)) {
            event -> Data? in
            guard case .message(id, let data, false) = event else { return nil }
            return data
        }
        #expect(atServer == Data(big.utf8))

        // The echo comes back as ONE 20 MiB frame, as the gateway's Node server sends it.
        let back = try await client.message(1, timeout: .seconds(20))
        #expect(back.isBinary == false)
        #expect(back.data.count == big.utf8.count)
        #expect(back.data == Data(big.utf8))
        #expect(client.client.terminationError == nil)
        client.client.close()
    }

    @Test(arguments: [true, false])
    func oversizedInboundMessageClosesWith1009(singleFrame: Bool) async throws {
        let server = try LoopbackServer()
        let client = try ConnectedClient(.init(url: server.url(), maxMessageBytes: 1024 * 1024))
        try await client.connect()
        let id = try await server.opened()

        let fits = patternText(count: 1024 * 1024)  // exactly the limit is fine
        try server.server.send(text: fits, to: id, singleFrame: singleFrame)
        #expect(try await client.message(1).data.count == 1024 * 1024)

        try server.server.send(text: patternText(count: 1024 * 1024 + 1), to: id, singleFrame: singleFrame)
        let closed = try await client.closed()
        #expect(closed.code == 1009)
        #expect(closed.reason == "message too large")
        #expect(client.client.terminationError == .messageTooLarge)
        #expect(client.messages.count == 1)
        let atServer = try await server.closed(id)
        #expect(atServer.code == 1009)
        #expect(atServer.reason == "message too large")
    }

    @Test func serverCloseCodeAndReasonReachTheClient() async throws {
        let server = try LoopbackServer()
        let client = try ConnectedClient(.init(url: server.url()))
        try await client.connect()
        let id = try await server.opened()
        try server.server.close(id, code: 1012, reason: "service restart")
        let closed = try await client.closed()
        #expect(closed.code == 1012)
        #expect(closed.reason == "service restart")
        #expect(client.client.terminationError == .closed(code: 1012, reason: "service restart"))
        try await client.recorder.waitUntilFinished()
        #expect(throws: TransportError.notConnected) { try client.client.send(text: "late") }
    }

    @Test func clientCloseCodeAndReasonReachTheServer() async throws {
        let server = try LoopbackServer()
        let client = try ConnectedClient(.init(url: server.url()))
        try await client.connect()
        let id = try await server.opened()
        try client.client.send(text: "last words")
        client.client.close(code: 4000, reason: "tick timeout")
        let atServer = try await server.closed(id)
        #expect(atServer.code == 4000)
        #expect(atServer.reason == "tick timeout")
        // The message queued before the close still went out first.
        #expect(server.recorder.events.contains(.message(id, Data("last words".utf8), isBinary: false)))
        let atClient = try await client.closed()
        #expect(atClient.code == 4000)
    }

    @Test func serverTellsConnectionsApart() async throws {
        let server = try LoopbackServer()
        let first = try ConnectedClient(.init(url: server.url("/one")))
        let second = try ConnectedClient(.init(url: server.url("/two")))
        try await first.connect()
        try await second.connect()
        let a = try await server.opened(1)
        let b = try await server.opened(2)
        #expect(a != b)
        let paths = server.recorder.events.compactMap { event -> String? in
            guard case .opened(_, let path) = event else { return nil }
            return path
        }
        #expect(Set(paths) == ["/one", "/two"])
        try server.server.send(text: "to a", to: a)
        try server.server.send(text: "to b", to: b)
        let one = try await first.message()
        let two = try await second.message()
        #expect(Set([one.data, two.data]) == [Data("to a".utf8), Data("to b".utf8)])
        #expect(one.data != two.data)
    }
}
