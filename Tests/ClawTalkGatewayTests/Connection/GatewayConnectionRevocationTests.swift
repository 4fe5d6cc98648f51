import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Testing

@Suite("Gateway connection: revocation and approval", .timeLimit(.minutes(1)))
struct GatewayConnectionRevocationTests {
    @Test("4001 → quick reconnect → AUTH_DEVICE_TOKEN_MISMATCH → token deleted, retry with the shared token")
    func revocation() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let clock = ManualClock()
        let connection = try Fixtures.connection(dialer: dialer, store: store, sharedToken: "shared", clock: clock)
        let deviceId = try Fixtures.identity().deviceId
        try store.saveDeviceToken(
            "revoked", role: "node", scopes: [], issuedAtMs: nil, deviceId: deviceId, for: connection.gatewayKey)
        try await withRunning(connection) {
            let first = try await dialer.nextPeer()
            let initial = try await first.acceptConnect()
            #expect(initial.params?["auth"] == ["deviceToken": "revoked"])
            try await Fixtures.waitForState(connection) { $0.isConnected }
            first.close(code: 4001, reason: "client invalidated: token revoked")
            // Quick: the single 250 ms retry, not the normal 1 s backoff.
            try await Fixtures.reconnect(connection, after: .milliseconds(250), on: clock)
            let second = try await dialer.nextPeer()
            let retry = try await second.rejectConnect(
                ErrorShape(
                    code: "INVALID_REQUEST", message: "device token mismatch",
                    details: ["code": "AUTH_DEVICE_TOKEN_MISMATCH"]))
            #expect(retry.params?["auth"] == ["deviceToken": "revoked"])
            try await Fixtures.reconnect(connection, after: .milliseconds(250), on: clock)
            let third = try await dialer.nextPeer()
            let fallback = try await third.acceptConnect(hello: TestHello.payload(deviceToken: "new"))
            #expect(fallback.params?["auth"] == ["token": "shared"])
            try await Fixtures.waitForState(connection) { $0.isConnected }
            #expect(try store.deviceToken(for: connection.gatewayKey, deviceId: deviceId, role: .node)?.token == "new")
        }
    }

    @Test("node.pair.resolved approved for this node: reconnect once; for another node: nothing")
    func capabilityApproval() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let clock = ManualClock()
        let connection = try Fixtures.connection(dialer: dialer, store: store, clock: clock)
        let deviceId = try Fixtures.identity().deviceId
        try await withRunning(connection) {
            let first = try await dialer.nextPeer()
            try await first.acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
            // A barrier: the answer to a marker request, sent after the two events, is handled
            // after them (one socket, in order).
            let marker = Task { try await connection.request(method: "node.event", params: ["event": "marker"]) }
            let request = try await first.nextRequest()
            first.sendEvent(
                "node.pair.resolved", payload: ["requestId": "n-1", "nodeId": "other", "decision": "approved"])
            first.sendEvent(
                "node.pair.resolved",
                payload: ["requestId": "n-2", "nodeId": .string(deviceId), "decision": "rejected"])
            first.respond(to: request)
            _ = try await marker.value
            #expect(await connection.epoch == 1)
            #expect(await connection.isConnected, "neither event closed the socket")
            first.sendEvent(
                "node.pair.resolved",
                payload: ["requestId": "n-3", "nodeId": .string(deviceId), "decision": "approved"])
            let close = try await first.nextClose()
            #expect(close.code == 1000)
            try await Fixtures.reconnect(connection, after: .seconds(1), on: clock)
            try await dialer.nextPeer().acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
            #expect(await connection.epoch == 2)
        }
    }

    @Test("streams requested after run() ended finish at once")
    func finishedStreams() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let connection = try Fixtures.connection(dialer: ScriptedDialer(), store: store)
        await connection.stop()
        await connection.run()
        var states: [ConnectionState] = []
        for await state in await connection.states() { states.append(state) }
        #expect(states == [.stopped])
        var count = 0
        for await _ in await connection.subscribe() { count += 1 }
        #expect(count == 0)
    }
}
