import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Synchronization
import Testing

@Suite("Gateway connection: stop", .timeLimit(.minutes(1)))
struct GatewayConnectionStopTests {
    @Test("stop() ends run() promptly even when the socket never reports its close")
    func stopWithoutCloseEvent() async throws {
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
        let peer = try await dialer.peers.next()
        let socket = try await dialer.sockets.next()
        // A 10-minute tick: the watchdog cannot be what ends the socket here.
        try await peer.acceptConnect(hello: TestHello.payload(tickIntervalMs: 600_000))
        try await Fixtures.waitForState(connection) { $0.isConnected }
        await connection.stop()
        // The close is never answered: the socket is dropped when the 1 s close bound runs out.
        try await clock.advanceToSleeper(in: .seconds(1))
        try await withTimeout(.seconds(2)) { await runner.value }
        let firstClose = socket.closes.first
        #expect(firstClose == 1000)
        #expect(await connection.state == .stopped)
    }

    @Test("cancelling the task that runs run() stops the connection")
    func cancelRun() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let connection = try Fixtures.connection(dialer: dialer, store: store)
        let runner = Task { await connection.run() }
        let peer = try await dialer.nextPeer()
        try await peer.acceptConnect()
        try await Fixtures.waitForState(connection) { $0.isConnected }
        runner.cancel()
        try await withTimeout(.seconds(2)) { await runner.value }
        let close = try await peer.nextClose()
        #expect(close.code == 1000)
        #expect(await connection.state == .stopped)
    }
}
