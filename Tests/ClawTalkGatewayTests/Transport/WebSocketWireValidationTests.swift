import ClawTalkGateway
import Foundation
import Testing

/// What the client must refuse from a server (RFC 6455 5.2, 5.5.1, 7.4, 8.1), each case against
/// a hand-scripted peer. Every bad frame is followed by a valid close 1000 from the peer, so a
/// client that let the bad frame through closes with 1000 at once instead of the code expected.
@Suite("WebSocket client wire validation", .timeLimit(.minutes(1)))
struct WebSocketWireValidationTests {
    /// Runs the client against `frames` (after the upgrade) and returns how it closed, the
    /// messages it delivered and the code of the close frame it sent.
    private func exchange(_ frames: [UInt8]) async throws -> (
        code: Int?, reason: String, messages: [Data], sentCode: Int?
    ) {
        let peer = try RawScriptedPeer { key in
            switchingProtocols(key: key) + frames + serverFrame(8, closePayload(1000, "bye"))
        }
        let client = try ConnectedClient(.init(url: "ws://127.0.0.1:\(peer.port)/"))
        try await client.connect()
        let closed = try await client.closed()
        try await peer.waitUntilFinished()
        let close = peer.frames.last { $0.opcode == 8 }
        let sentCode = close.flatMap { $0.payload.count >= 2 ? Int($0.payload[0]) << 8 | Int($0.payload[1]) : nil }
        return (closed.code, closed.reason, client.messages.map(\.0), sentCode)
    }

    static let invalidText: [[UInt8]] = [
        [0x68, 0x69, 0xc3],  // truncated 2-byte sequence at the end of the message
        [0xed, 0xa0, 0x80],  // UTF-16 surrogate U+D800
        [0xc0, 0xaf],  // overlong "/"
        [0xe0, 0x80, 0xaf],  // overlong 3-byte "/"
        [0xf4, 0x90, 0x80, 0x80],  // above U+10FFFF
        [0x80],  // continuation byte without a lead
        [0xff],
    ]

    @Test(arguments: invalidText)
    func invalidUTF8TextFailsWith1007(bytes: [UInt8]) async throws {
        let result = try await exchange(serverFrame(1, bytes))
        #expect(result.messages.isEmpty)
        #expect(result.code == 1007)
        #expect(result.sentCode == 1007)
        #expect(result.reason.contains("UTF-8"), "\(result.reason)")
    }

    @Test func invalidUTF8InALaterFragmentFailsWith1007() async throws {
        let result = try await exchange(
            serverFrame(1, Array("ok ".utf8), fin: false) + serverFrame(0, [0xe2, 0x82], fin: false)
                + serverFrame(0, [0x41]))  // "€" cut short by an ASCII byte
        #expect(result.messages.isEmpty)
        #expect(result.code == 1007)
        #expect(result.sentCode == 1007)
    }

    @Test func characterSplitAcrossFragmentsIsValid() async throws {
        // "€" = e2 82 ac, split over three frames: only the whole message is checked.
        let result = try await exchange(
            serverFrame(1, [0x61, 0xe2], fin: false) + serverFrame(0, [0x82], fin: false)
                + serverFrame(0, [0xac, 0x62]) + serverFrame(2, [0xff, 0xfe]))  // binary: any bytes
        #expect(result.messages == [Data("a€b".utf8), Data([0xff, 0xfe])])
        #expect(result.code == 1000)
        #expect(result.sentCode == 1000)
    }

    @Test func closeReasonThatIsNotUTF8FailsWith1007() async throws {
        let result = try await exchange(serverFrame(8, [0x03, 0xe8, 0x61, 0xc3, 0x28]))
        #expect(result.code == 1007)
        #expect(result.sentCode == 1007)
    }

    static let invalidClosePayloads: [[UInt8]] = [
        [0x03],  // a 1-byte body: no room for the code
        [0x03, 0xe7],  // 999
        [0x03, 0xec],  // 1004 reserved
        [0x03, 0xed],  // 1005 must not be on the wire
        [0x03, 0xee],  // 1006 must not be on the wire
        [0x03, 0xf7],  // 1015 must not be on the wire
        [0x03, 0xf8],  // 1016 unassigned
        [0x0b, 0xb7],  // 2999 unassigned
        [0x13, 0x88],  // 5000 outside every range
        [0x00, 0x00],
    ]

    @Test(arguments: invalidClosePayloads)
    func invalidClosePayloadFailsWith1002(payload: [UInt8]) async throws {
        let peer = try RawScriptedPeer { key in switchingProtocols(key: key) + serverFrame(8, payload) }
        let client = try ConnectedClient(.init(url: "ws://127.0.0.1:\(peer.port)/"))
        try await client.connect()
        let closed = try await client.closed()
        try await peer.waitUntilFinished()
        #expect(closed.code == 1002)
        #expect(peer.frames.last?.opcode == 8)
        #expect(peer.frames.last?.payload.prefix(2) == [0x03, 0xea])  // 1002, not an echo
    }

    @Test(arguments: [1000, 1003, 1011, 1012, 1014, 3000, 4999])
    func validCloseCodesAreEchoed(code: Int) async throws {
        let peer = try RawScriptedPeer { key in
            switchingProtocols(key: key) + serverFrame(8, closePayload(code, "é"))
        }
        let client = try ConnectedClient(.init(url: "ws://127.0.0.1:\(peer.port)/"))
        try await client.connect()
        let closed = try await client.closed()
        try await peer.waitUntilFinished()
        #expect(closed.code == code)
        #expect(closed.reason == "é")
        #expect(peer.frames.last?.payload.prefix(2) == [UInt8(code >> 8), UInt8(code & 0xff)])
    }

    static let nonMinimalLengths: [[UInt8]] = [
        [0x81, 126, 0x00, 0x05] + Array("hello".utf8),  // 16-bit length for 5 bytes
        [0x81, 126, 0x00, 0x7d] + [UInt8](repeating: 0x61, count: 125),  // 125 fits in 7 bits
        [0x82, 127, 0, 0, 0, 0, 0, 0, 0x00, 0xc8] + [UInt8](repeating: 7, count: 200),
        [0x82, 127, 0, 0, 0, 0, 0, 0, 0xff, 0xff] + [UInt8](repeating: 7, count: 65535),
        [0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0x05] + [UInt8](repeating: 7, count: 5),  // top bit set
    ]

    @Test(arguments: nonMinimalLengths)
    func nonMinimalLengthIsAProtocolError(frame: [UInt8]) async throws {
        let result = try await exchange(frame)
        #expect(result.messages.isEmpty)
        #expect(result.code == 1002)
        #expect(result.sentCode == 1002)
    }

    @Test func minimalLengthsAtTheBoundariesAreAccepted() async throws {
        let a = [UInt8](repeating: 0x61, count: 126)
        let b = [UInt8](repeating: 0x62, count: 65536)
        let result = try await exchange(
            [0x81, 126, 0x00, 0x7e] + a + [0x81, 127, 0, 0, 0, 0, 0, 0x01, 0x00, 0x00] + b)
        #expect(result.messages == [Data(a), Data(b)])
        #expect(result.code == 1000)
    }

    @Test func connectionHeaderIsReadAsATokenList() async throws {
        let peer = try RawScriptedPeer { key in
            Array(
                ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
                    + "Sec-WebSocket-Accept: \(acceptValue(for: key))\r\n\r\n").utf8)
        }
        let client = try ConnectedClient(.init(url: "ws://127.0.0.1:\(peer.port)/"))
        try await client.connect()
        client.client.close()
        _ = try await client.closed()
    }

    static let badHeads: [String] = [
        "HTTP/1.1 1010 Switching Protocols\r\n",  // four digits
        "HTTP/1.1 +101 Switching Protocols\r\n",
        "HTTP/11 101 Switching Protocols\r\n",
        "HTTP/1.1 101 Switching Protocols\r\nX-Junk: a\u{0}b\r\n",  // a NUL in the head
    ]

    @Test(arguments: badHeads)
    func malformedUpgradeResponseIsRejected(head: String) async throws {
        let peer = try RawScriptedPeer { key in
            // The required headers first: only the line under test is wrong.
            let good = switchingProtocols(key: key).dropFirst("HTTP/1.1 101 Switching Protocols\r\n".utf8.count)
            return Array(head.utf8) + Array(good)
        }
        let client = try WebSocketClient(configuration: .init(url: "ws://127.0.0.1:\(peer.port)/"))
        await #expect(throws: TransportError.self) { try await client.connect() }
    }
}
