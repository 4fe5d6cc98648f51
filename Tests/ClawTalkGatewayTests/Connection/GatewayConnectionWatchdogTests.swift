import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

/// The tick watchdog's close (protocol.md §4.3.2): 4000 "tick timeout" is written to the
/// socket before it is torn down, the peer gets at most 1 s to answer, then the connection is
/// dropped, pending requests fail and the node reconnects.
@Suite("Gateway connection: tick watchdog close", .timeLimit(.minutes(1)))
struct GatewayConnectionWatchdogTests {
    /// A running node connection over a ``StubbornDialer`` on a manual clock. When `body` is
    /// done the connection is stopped and the newest socket answers the stop's close, so `run()`
    /// ends without the close bound having to run out.
    private func stubborn(
        _ body: (GatewayConnection, StubbornDialer, ManualClock) async throws -> Void
    ) async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = StubbornDialer()
        let clock = ManualClock()
        let configuration = GatewayConnectionConfiguration(
            endpoint: Fixtures.localEndpoint, role: .node(NodeSurface()), client: ClientMetadata(version: "0.1.0"))
        let connection = GatewayConnection(
            configuration: configuration, dialer: dialer, identity: try Fixtures.identity(), store: store,
            clock: clock, jitter: .none)
        let runner = Task { await connection.run() }
        func finish() async {
            await connection.stop()
            dialer.newest?.answer()
            await runner.value
        }
        do {
            try await body(connection, dialer, clock)
        } catch {
            await finish()
            throw error
        }
        await finish()
    }

    @Test("a peer that never answers the 4000 close is dropped after the bound; pending requests fail; reconnect")
    func unansweredClose() async throws {
        try await stubborn { connection, dialer, clock in
            let peer = try await dialer.peers.next()
            let socket = try await dialer.sockets.next()
            try await peer.acceptConnect(hello: TestHello.payload(tickIntervalMs: 2_000))
            try await Fixtures.waitForState(connection) { $0.isConnected }
            let pending = Task { try await connection.request(method: "node.event", timeout: .seconds(600)) }
            _ = try await peer.nextRequest(method: "node.event")
            try await Fixtures.expireWatchdog(after: .seconds(4), on: clock)
            try #require(await eventually { socket.closes == [4000] })
            // The 1 s bound for the peer's answer runs out (at 5 s), then the normal backoff (1 s).
            try await clock.advanceToSleeper(in: .seconds(1))
            try await Fixtures.reconnect(connection, after: .seconds(1), on: clock)

            let next = try await dialer.peers.next()
            // The close first, with the spec's code and reason; then (no answer came) the drop.
            #expect(socket.recorded == [.close(code: 4000, reason: "tick timeout"), .drop])
            // The peer saw the connection end without a close frame: that is the drop, not the close.
            #expect(try await peer.nextClose() == (nil, "connection dropped"))
            await #expect(throws: GatewayError.closed(reason: "tick watchdog")) { try await pending.value }

            try await next.acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
            #expect(await connection.epoch == 2)
        }
    }

    @Test("the socket is dropped only after the peer answered the 4000 close, inside the bound")
    func answeredClose() async throws {
        // A manual clock: the 1 s bound cannot run out unless the test advances it.
        let clock = ManualClock()
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = StubbornDialer()
        let configuration = GatewayConnectionConfiguration(
            endpoint: Fixtures.localEndpoint, role: .node(NodeSurface()), client: ClientMetadata(version: "0.1.0"))
        let connection = GatewayConnection(
            configuration: configuration, dialer: dialer, identity: try Fixtures.identity(), store: store,
            clock: clock, jitter: .none)
        let runner = Task { await connection.run() }
        let peer = try await dialer.peers.next()
        let socket = try await dialer.sockets.next()
        try await peer.acceptConnect(hello: TestHello.payload(tickIntervalMs: 2_000))
        try await Fixtures.waitForState(connection) { $0.isConnected }
        try await Fixtures.expireWatchdog(after: .seconds(4), on: clock)
        try #require(await eventually { socket.closes == [4000] })
        // While the peer has not answered, the socket is neither dropped nor replaced. The barrier:
        // the connection sleeps out its close grace (1 s, to 5 s), waiting for the answer.
        try await clock.waitForSleeper(until: .seconds(5))
        #expect(socket.recorded == [.close(code: 4000, reason: "tick timeout")])
        #expect(dialer.sockets.queued.isEmpty)

        socket.answer()
        try #require(await eventually { socket.recorded.last == .drop })
        #expect(socket.recorded == [.close(code: 4000, reason: "tick timeout"), .answered, .drop])
        #expect(try await peer.nextClose() == (4000, "tick timeout"))
        // The reconnect follows the normal backoff (1 s without jitter).
        try await clock.waitForSleeper(until: .seconds(5))
        clock.advance(by: .seconds(1))
        let next = try await dialer.peers.next()
        let nextSocket = try await dialer.sockets.next()
        try await next.acceptConnect()
        try await Fixtures.waitForState(connection) { $0.isConnected }

        await connection.stop()
        try #require(await eventually { nextSocket.closes == [1000] })
        nextSocket.answer()
        await runner.value
    }

    @Test("frames arriving while the watchdog's close is pending are not acted on")
    func framesAfterTheClose() async throws {
        try await stubborn { connection, dialer, clock in
            let peer = try await dialer.peers.next()
            let socket = try await dialer.sockets.next()
            try await peer.acceptConnect(hello: TestHello.payload(tickIntervalMs: 2_000))
            try await Fixtures.waitForState(connection) { $0.isConnected }
            let pending = Task { try await connection.request(method: "node.event", timeout: .seconds(600)) }
            let request = try await peer.nextRequest(method: "node.event")
            try await Fixtures.expireWatchdog(after: .seconds(4), on: clock)
            try #require(await eventually { !socket.closes.isEmpty })
            #expect(socket.closes == [4000])
            // The close bound cannot run out (the clock stays at 4 s): the answer arrives while
            // the close is pending, and the reader reads it before the peer's close that follows.
            peer.respond(to: request, payload: ["ok": true])
            socket.answer()
            await #expect(throws: GatewayError.closed(reason: "tick watchdog")) { try await pending.value }
            #expect(socket.recorded == [.close(code: 4000, reason: "tick timeout"), .answered, .drop])
            try await Fixtures.reconnect(connection, after: .seconds(1), on: clock)
            try await dialer.peers.next().acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
        }
    }

    @Test("over a loopback WebSocket the stalled test gateway records 4000 \"tick timeout\", then the node reconnects")
    func loopback() async throws {
        var gatewayConfiguration = TestGatewayConfiguration()
        gatewayConfiguration.autoApproveLoopback = true
        gatewayConfiguration.policy.tickIntervalMs = 500
        let gateway = TestGateway(configuration: gatewayConfiguration)
        let url = try await gateway.listen()
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let configuration = GatewayConnectionConfiguration(
            endpoint: try GatewayEndpoint.parse(url), role: .node(NodeSurface()),
            client: ClientMetadata(version: "0.1.0"))
        let connection = GatewayConnection(
            configuration: configuration, dialer: WebSocketDialer(), identity: try Fixtures.identity(), store: store,
            jitter: .none)
        try await withRunning(connection) {
            let first = try await Self.connected(gateway, number: 1)
            await gateway.stall(connection: first)
            let closed = try await gateway.waitForEvent(timeout: .seconds(30)) {
                if case .closed(first, _, _) = $0 { return true }
                return false
            }
            // A bare TCP drop would be recorded without a code (1006 at a real gateway).
            #expect(closed == .closed(connection: first, code: 4000, reason: "tick timeout"))
            let second = try await Self.connected(gateway, number: 2)
            #expect(second != first)
        }
        await gateway.stopListening()
    }

    /// The connection id of the `number`-th node `hello-ok` (1-based).
    private static func connected(_ gateway: TestGateway, number: Int) async throws -> Int {
        try await gateway.connection(number: number)
    }
}
