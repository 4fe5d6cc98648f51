import ClawTalkGateway
import Foundation
import Testing

/// The client's own RFC 6455 layer against a hand-scripted peer (libwebsockets 4.1's ws client
/// is not used: it turns close codes 1012-1014 into 1002).
@Suite("WebSocket client wire protocol", .timeLimit(.minutes(1)))
struct WebSocketWireTests {
    @Test func framesAfterTheUpgradeArriveWithControlFramesAndCloseCode() async throws {
        let peer = try RawScriptedPeer { key in
            switchingProtocols(key: key)  // the frames below ride in the same TCP segment
                + serverFrame(1, Array(#"{"type":"event","event":"connect.challenge"}"#.utf8))
                + serverFrame(1, Array("hel".utf8), fin: false)
                + serverFrame(9, Array("p1".utf8))  // a ping between two fragments
                + serverFrame(0, Array("lo".utf8))
        } reply: { frame in
            // Close once the pong is in (no pong is owed after a close has arrived).
            frame.opcode == 10 ? serverFrame(8, closePayload(1013, "gateway starting")) : []
        }
        let client = try ConnectedClient(.init(url: "ws://127.0.0.1:\(peer.port)/gw?x=1"))
        try await client.connect()
        #expect(try await client.message(1).data == Data(#"{"type":"event","event":"connect.challenge"}"#.utf8))
        #expect(try await client.message(2).data == Data("hello".utf8))
        let closed = try await client.closed()
        #expect(closed.code == 1013)
        #expect(closed.reason == "gateway starting")
        try await peer.waitUntilFinished()

        let request = peer.request
        #expect(request.hasPrefix("GET /gw?x=1 HTTP/1.1\r\n"))
        #expect(request.contains("\r\nHost: 127.0.0.1:\(peer.port)\r\n"))
        #expect(request.contains("\r\nSec-WebSocket-Version: 13\r\n"))
        #expect(!request.lowercased().contains("\r\norigin:"))
        let frames = peer.frames
        #expect(frames.allSatisfy { $0.masked })
        #expect(frames.map(\.opcode) == [10, 8])
        #expect(frames.first?.payload == Array("p1".utf8))
        #expect(frames.last?.payload == [0x03, 0xf5])  // the close echoed with 1013
    }

    @Test func clientFramesAreMaskedAndFragmented() async throws {
        let peer = try RawScriptedPeer { key in switchingProtocols(key: key) }
        let client = try ConnectedClient(.init(url: "ws://127.0.0.1:\(peer.port)/"))
        try await client.connect()
        let big = patternText(count: 150_000)
        try client.client.send(text: big)
        client.client.close(code: 4000, reason: "tick timeout")
        try await peer.waitUntilFinished()
        let frames = peer.frames
        #expect(frames.allSatisfy { $0.masked })
        #expect(frames.map(\.opcode) == [1, 0, 0, 8])
        #expect(frames.map(\.fin) == [false, false, true, true])
        #expect(frames.dropLast().flatMap(\.payload) == Array(big.utf8))
        #expect(frames.last?.payload == closePayload(4000, "tick timeout"))
    }

    @Test func rejectedUpgradeIsReported() async throws {
        let peer = try RawScriptedPeer { _ in
            Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        }
        let client = try WebSocketClient(configuration: .init(url: "ws://127.0.0.1:\(peer.port)/"))
        do {
            try await client.connect()
            Issue.record("connected although the server answered 403")
        } catch TransportError.connectFailed(let message) {
            #expect(message.contains("HTTP 403 Forbidden"), "\(message)")
        }
    }

    @Test func wrongAcceptKeyIsRejected() async throws {
        let peer = try RawScriptedPeer { key in switchingProtocols(key: key, accept: "bm90IHRoZSByaWdodCBvbmU=") }
        let client = try WebSocketClient(configuration: .init(url: "ws://127.0.0.1:\(peer.port)/"))
        do {
            try await client.connect()
            Issue.record("connected with a wrong Sec-WebSocket-Accept")
        } catch TransportError.connectFailed(let message) {
            #expect(message.contains("Sec-WebSocket-Accept"), "\(message)")
        }
    }

    @Test func maskedServerFrameIsAProtocolError() async throws {
        let peer = try RawScriptedPeer { key in
            switchingProtocols(key: key) + serverFrame(1, Array("sneaky".utf8), mask: [1, 2, 3, 4])
        }
        let client = try ConnectedClient(.init(url: "ws://127.0.0.1:\(peer.port)/"))
        try await client.connect()
        let closed = try await client.closed()
        #expect(closed.code == 1002)
        #expect(client.messages.isEmpty)
        try await peer.waitUntilFinished()
        #expect(peer.frames.last?.opcode == 8)
        #expect(peer.frames.last?.payload.prefix(2) == [0x03, 0xea])  // 1002
    }
}
