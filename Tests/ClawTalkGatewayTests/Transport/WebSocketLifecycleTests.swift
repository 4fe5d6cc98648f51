import ClawTalkGateway
import ClawTalkTesting
import Foundation
import Glibc
import Testing

@Suite("WebSocket connection life cycle", .timeLimit(.minutes(1)))
struct WebSocketLifecycleTests {
    @Test func closedPortFailsQuickly() async throws {
        let probe = WebSocketServer()
        try probe.start()
        let port = probe.port
        probe.stop()  // nothing listens there any more
        let client = try WebSocketClient(configuration: .init(url: "ws://127.0.0.1:\(port)/"))
        let start = ContinuousClock.now
        do {
            try await client.connect(timeout: .seconds(60))
            Issue.record("connected to a closed port")
        } catch TransportError.connectFailed(let message) {
            #expect(message.contains("127.0.0.1:\(port)"), "\(message)")
        }
        // `connectFailed` (not `timedOut`) shows it did not wait for the limit; the bound only has
        // to tell it from the 60 s limit, whatever the machine's speed.
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(client.terminationError != nil)
    }

    @Test func silentPeerTimesOut() async throws {
        // A TCP listener that never answers the upgrade request.
        let listener = try SilentListener()
        defer { listener.close() }
        let client = try WebSocketClient(configuration: .init(url: "ws://127.0.0.1:\(listener.port)/"))
        let start = ContinuousClock.now
        await #expect(throws: TransportError.timedOut) {
            try await client.connect(timeout: .milliseconds(300))
        }
        // Far above the 0.3 s limit on a busy machine, far below the 30 s default.
        #expect(ContinuousClock.now - start < .seconds(15))
    }

    @Test func sendingBeforeConnectIsRefused() throws {
        let client = try WebSocketClient(configuration: .init(url: "ws://127.0.0.1:9/"))
        #expect(throws: TransportError.notConnected) { try client.send(text: "early") }
    }

    @Test func connectTwiceIsRefused() async throws {
        let server = try LoopbackServer()
        let client = try WebSocketClient(configuration: .init(url: server.url()))
        try await client.connect()
        await #expect(throws: TransportError.self) { try await client.connect() }
    }

    @Test func keepalivePingsAreAnswered() async throws {
        let server = try LoopbackServer()
        let client = try ConnectedClient(.init(url: server.url(), pingIntervalSeconds: 1))
        try await client.connect()
        #expect(await eventually { client.client.statistics.pongsReceived >= 1 })
        #expect(client.client.terminationError == nil)
    }

    @Test func shutdownWhileReceivingStopsAllEvents() async throws {
        let server = try LoopbackServer()
        for round in 0..<5 {
            let client = try ConnectedClient(.init(url: server.url()))
            try await client.connect()
            let id = try await server.opened(round + 1)
            let chunk = patternText(count: 8 * 1024, seed: round)
            let flood = Task {
                while !Task.isCancelled {
                    try? server.server.send(text: chunk, to: id)
                    try? await Task.sleep(for: .microseconds(200))
                }
            }
            _ = try await client.message(3)
            client.client.shutdown()
            let after = client.client.statistics
            try await client.recorder.waitUntilFinished()
            try await Task.sleep(for: .milliseconds(100))
            flood.cancel()
            #expect(client.client.statistics == after, "events arrived after shutdown returned")
            #expect(!client.recorder.events.contains { if case .closed = $0 { true } else { false } })
            #expect(throws: TransportError.notConnected) { try client.client.send(text: "x") }
            _ = try await server.closed(id)  // the server sees the connection drop
        }
    }

    @Test func shutdownDuringConnectFailsTheAttempt() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let client = try WebSocketClient(configuration: .init(url: "ws://127.0.0.1:\(listener.port)/"))
        let attempt = Task { try await client.connect(timeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        client.shutdown()
        let error = await #expect(throws: TransportError.self) { try await attempt.value }
        #expect(error != .timedOut, "the shutdown ended the attempt, not the 60 s limit")
    }

    @Test func cancellingConnectAbandonsTheAttempt() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let client = try WebSocketClient(configuration: .init(url: "ws://127.0.0.1:\(listener.port)/"))
        let attempt = Task { try await client.connect(timeout: .seconds(60)) }
        try await Task.sleep(for: .milliseconds(50))
        attempt.cancel()
        await #expect(throws: CancellationError.self) { try await attempt.value }
    }

    @Test func droppingAConnectedClientIsSafe() async throws {
        let server = try LoopbackServer()
        do {
            let client = try WebSocketClient(configuration: .init(url: server.url()))
            try await client.connect()
        }  // deinit tears it down
        let id = try await server.opened()
        _ = try await server.closed(id)
    }
}

/// A listening TCP socket on 127.0.0.1 that never accepts: the kernel completes the TCP
/// handshake, and the WebSocket upgrade request is never answered.
final class SilentListener {
    private let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0)
        try #require(listen(fd, 8) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        _ = Glibc.close(fd)
    }
}
