import ClawTalkGateway
import Foundation
import Testing

/// The client's one write path when the socket takes less than offered: the server stops
/// reading, so the socket fills and `send` returns short or EAGAIN (and over wss the TLS records
/// wait too); the unsent rest must go out later, in order, once the server reads again.
@Suite("WebSocket client under backpressure", .timeLimit(.minutes(2)))
struct WebSocketBackpressureTests {
    /// More than the kernel can buffer between the two sockets (the largest receive buffer plus
    /// the largest send buffer), so a peer that does not read must make the client's socket full.
    private static func bytesBeyondSocketBuffers() throws -> Int {
        func maximum(_ path: String) throws -> Int {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            return Int(text.split(whereSeparator: \.isWhitespace).last ?? "") ?? 0
        }
        let rmem = try maximum("/proc/sys/net/ipv4/tcp_rmem")
        let wmem = try maximum("/proc/sys/net/ipv4/tcp_wmem")
        return rmem + wmem + 4 * 1024 * 1024
    }

    @Test(arguments: [false, true])
    func messagesSurviveAFullSocket(secure: Bool) async throws {
        let certificate = secure ? try SelfSignedCertificate() : nil
        defer { certificate?.remove() }
        let piece = 4 * 1024 * 1024
        let total = try Self.bytesBeyondSocketBuffers()
        let server = try LoopbackServer(
            maxMessageBytes: piece, tls: certificate.map { ($0.certificatePath, $0.keyPath) })
        let client = try ConnectedClient(.init(url: server.url(secure: secure), tlsPinSHA256: certificate?.sha256))
        try await client.connect()
        let id = try await server.opened()

        // The server handles commands in order: once this message arrives, it reads no more.
        try server.server.pauseReading(id)
        try server.server.send(text: "paused", to: id)
        #expect(try await client.message(1).data == Data("paused".utf8))

        let messages = (0..<(total + piece - 1) / piece).map { patternText(count: piece, seed: $0) }
        for message in messages { try client.client.send(text: message) }
        try await client.recorder.wait(for: "the client's socket to fill up") { _, _ in
            client.client.sendStalls > 0
        }

        try server.server.pauseReading(id, false)
        for (n, message) in messages.enumerated() {
            let received = try await server.recorder.first("message \(n + 1) at the server", n + 1) {
                event -> Data? in
                guard case .message(id, let data, false) = event else { return nil }
                return data
            }
            #expect(received == Data(message.utf8), "message \(n + 1) of \(messages.count) differs")
        }
        #expect(client.client.terminationError == nil)
        client.client.close()
        _ = try await client.closed()
    }
}
