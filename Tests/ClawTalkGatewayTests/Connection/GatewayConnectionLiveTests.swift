import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@Suite("Gateway connection: live socket", .timeLimit(.minutes(1)))
struct GatewayConnectionLiveTests {
    /// A barrier for "nothing was sent": a marker request sent now must be the first thing
    /// `peer` receives, as frames keep their order on the socket.
    private static func expectMarkerFirst(
        _ connection: GatewayConnection, _ peer: ScriptedPeer, _ comment: Comment
    ) async throws {
        let marker = Task { try await connection.request(method: "node.event", params: ["event": "marker"]) }
        let first = try await peer.nextRequest()
        #expect(first.params?["event"] == "marker", comment)
        peer.respond(to: first)
        _ = try await marker.value
    }

    /// A running, connected node connection on a manual clock, its first peer and the clock.
    private func connected(
        hello: WireJSON = TestHello.payload(), logger: Logger = .discarding,
        _ body: (GatewayConnection, ScriptedDialer, ScriptedPeer, ManualClock) async throws -> Void
    ) async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let clock = ManualClock()
        let connection = try Fixtures.connection(dialer: dialer, store: store, clock: clock, logger: logger)
        try await withRunning(connection) {
            let peer = try await dialer.nextPeer()
            try await peer.acceptConnect(hello: hello)
            try await Fixtures.waitForState(connection) { $0.isConnected }
            try await body(connection, dialer, peer, clock)
        }
    }

    @Test("requests fail at once when not connected")
    func notConnected() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let connection = try Fixtures.connection(dialer: ScriptedDialer(), store: store)
        await #expect(throws: GatewayError.notConnected) { try await connection.request(method: "node.event") }
    }

    @Test("responses match requests by id in any order; ok:false becomes GatewayError.response")
    func responses() async throws {
        try await connected { connection, _, peer, _ in
            async let first = connection.request(method: "node.event", params: ["event": "a"])
            async let second = connection.request(method: "node.event", params: ["event": "b"])
            let one = try await peer.nextRequest()
            let two = try await peer.nextRequest()
            #expect(one.id != two.id)
            peer.respond(to: two, payload: ["echo": two.params?["event"] ?? .null])
            peer.respond(to: one, payload: ["echo": one.params?["event"] ?? .null])
            let results = try await [first, second]
            #expect(results == [["echo": "a"], ["echo": "b"]])

            async let failing = connection.request(method: "node.event")
            let request = try await peer.nextRequest()
            peer.fail(request, error: ErrorShape(code: "INVALID_REQUEST", message: "bad"))
            do {
                _ = try await failing
                Issue.record("expected a failure")
            } catch let error as GatewayError {
                #expect(error.errorShape?.code == "INVALID_REQUEST")
            }
        }
    }

    @Test("pending requests fail with .closed on disconnect and are not replayed on the next socket")
    func pendingFailOnDisconnect() async throws {
        try await connected { connection, dialer, peer, clock in
            async let pending = connection.request(method: "node.event", params: ["event": "x"], timeout: .seconds(600))
            _ = try await peer.nextRequest()
            peer.close(code: 1006, reason: "network")
            do {
                _ = try await pending
                Issue.record("expected .closed")
            } catch let error as GatewayError {
                guard case .closed = error else {
                    Issue.record("got \(error)")
                    return
                }
            }
            try await Fixtures.reconnect(connection, after: .seconds(1), on: clock)
            let next = try await dialer.nextPeer()
            try await next.acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
            try await Self.expectMarkerFirst(connection, next, "the pending request is not replayed")
        }
    }

    @Test("a request times out on the injected clock")
    func requestTimeout() async throws {
        try await connected { connection, _, peer, clock in
            let request = Task { try await connection.request(method: "node.event", timeout: .seconds(2)) }
            _ = try await peer.nextRequest()
            // Unanswered: it fails when its 2 s have passed on the connection's clock.
            try await clock.advanceToSleeper(in: .seconds(2))
            await #expect(throws: GatewayError.timedOut(method: "node.event")) { try await request.value }
        }
    }

    @Test("outbound frames above policy.maxPayload are refused without sending")
    func maxPayload() async throws {
        try await connected(hello: TestHello.payload(maxPayload: 300)) { connection, _, peer, _ in
            let big = WireJSON.string(String(repeating: "x", count: 400))
            do {
                _ = try await connection.request(method: "node.event", params: ["payloadJSON": big])
                Issue.record("expected payloadTooLarge")
            } catch GatewayError.payloadTooLarge(let bytes, let limit) {
                #expect(limit == 300)
                #expect(bytes > 400)
            }
            try await Self.expectMarkerFirst(connection, peer, "the refused request was not sent")
        }
    }

    @Test("an epoch-tagged request is refused once the socket changed")
    func staleEpoch() async throws {
        try await connected { connection, _, _, _ in
            await #expect(throws: GatewayError.staleEpoch(expected: 7, current: 1)) {
                try await connection.request(method: "node.event", epoch: 7)
            }
        }
    }

    @Test("events reach filtered subscribers; malformed frames are logged and skipped")
    func eventsAndMalformedFrames() async throws {
        let sink = RecordingLogSink()
        let logger = Logger(category: "test", minimumLevel: .debug, sink: sink)
        try await connected(logger: logger) { connection, _, peer, _ in
            let chats = await connection.events(named: ["chat"])
            let all = await connection.subscribe()
            peer.peer.send(bytes: Data("{not json".utf8))
            peer.peer.send(bytes: Data("[1,2]".utf8))
            peer.sendEvent("tick", payload: ["ts": 1], seq: 1)
            peer.sendEvent("presence", payload: [:], seq: 2)
            peer.sendEvent("chat", payload: ["runId": "r1", "state": "final"], seq: 3)
            var iterator = chats.makeAsyncIterator()
            let chat = await iterator.next()
            #expect(chat?.event == "chat")
            #expect(chat?.payload?["runId"] == "r1")
            var events: [String] = []
            for await event in all {
                switch event {
                case .connected(let epoch, _): #expect(epoch == 1)
                case .event(_, let frame): events.append(frame.event)
                case .disconnected: break
                }
                if events.count == 2 { break }
            }
            #expect(events == ["presence", "chat"])
            #expect(await connection.isConnected)
            // Logged as an error, throttled to one line per 10 s (a chatty path).
            let malformed = sink.records.filter { $0.event == "gateway.frame.malformed" }
            #expect(malformed.count == 1)
            #expect(malformed.first?.level == .error)
        }
    }

    @Test("tick watchdog: silence > 2 × tickIntervalMs closes with 4000 \"tick timeout\" and reconnects")
    func watchdog() async throws {
        try await connected(hello: TestHello.payload(tickIntervalMs: 2_000)) { connection, dialer, peer, clock in
            try await Fixtures.expireWatchdog(after: .seconds(4), on: clock)
            let close = try await peer.nextClose()
            #expect(close.code == 4000)
            #expect(close.reason == "tick timeout")
            try await Fixtures.reconnect(connection, after: .seconds(1), on: clock)
            let next = try await dialer.nextPeer()
            try await next.acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
            #expect(await connection.epoch == 2)
        }
    }

    @Test("ticks keep the watchdog quiet")
    func ticksKeepAlive() async throws {
        // Without them the watchdog (2 × 20 s) would fire 2.5 times over these 100 s. A tick goes
        // out every 10 s of manual time, before the clock moves on; one read late counts at the
        // later time, so only three ticks in a row still unread 30 s on could let the watchdog fire.
        try await connected(hello: TestHello.payload(tickIntervalMs: 20_000)) { connection, _, peer, clock in
            try await clock.waitForSleeper(until: .milliseconds(250))
            // Ticks reach no subscriber: a marker event after each is the barrier that the
            // connection read it before the clock moves on (on a busy machine a tick read after
            // the advance counted late, and the watchdog fired).
            var markers = await connection.events(named: ["presence"]).makeAsyncIterator()
            for sequence in 0..<10 {
                peer.sendEvent("tick", payload: ["ts": .integer(Int64(sequence))], seq: 2 * sequence)
                peer.sendEvent("presence", payload: [:], seq: 2 * sequence + 1)
                #expect(await markers.next()?.seq == 2 * sequence + 1)
                #expect(await connection.isConnected)
                clock.advance(by: .seconds(10))
            }
            // The watchdog looked at the silence at 100 s and went back to sleep.
            try #require(await eventually { clock.sleeperDeadlines.contains { $0 > .seconds(100) } })
            #expect(await connection.epoch == 1)
            #expect(await connection.isConnected)
        }
    }

    @Test("no challenge within 10 s: close and reconnect")
    func challengeTimeout() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let clock = ManualClock()
        let connection = try Fixtures.connection(dialer: dialer, store: store, clock: clock)
        try await withRunning(connection) {
            let silent = try await dialer.nextPeer()
            // Before the challenge the watchdog looks every 250 ms; 10 s after the socket opened
            // the challenge wait is over.
            try await clock.waitForSleeper(until: .milliseconds(250))
            clock.advance(by: .seconds(10))
            let close = try await silent.nextClose()
            #expect(close.code == 1000)
            try await Fixtures.reconnect(connection, after: .seconds(1), on: clock)
            try await dialer.nextPeer().acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
        }
    }

    @Test("gateway starting (1013): the next attempt follows the retryAfterMs hint")
    func startup() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let clock = ManualClock()
        let connection = try Fixtures.connection(dialer: dialer, store: store, clock: clock)
        try await withRunning(connection) {
            try await dialer.nextPeer().rejectConnect(
                ErrorShape(
                    code: "UNAVAILABLE", message: "gateway starting", details: ["reason": "startup-sidecars"],
                    retryable: true, retryAfterMs: 500),
                closeCode: 1013)
            let state = try await Fixtures.waitForState(connection) {
                if case .waiting = $0 { return true }
                return false
            }
            #expect(state == .waiting(retryIn: .milliseconds(500), cause: "gateway starting"))
            try await clock.advanceToSleeper(in: .milliseconds(500))
            try await dialer.nextPeer().acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
        }
    }

    @Test("dial failures back off and retry")
    func dialFailure() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        dialer.failNextDial("connection refused")
        dialer.failNextDial("connection refused")
        let clock = ManualClock()
        let connection = try Fixtures.connection(dialer: dialer, store: store, clock: clock)
        try await withRunning(connection) {
            // No jitter: 1 s, then 2 s.
            try await Fixtures.reconnect(connection, after: .seconds(1), on: clock)
            try await Fixtures.reconnect(connection, after: .seconds(2), on: clock)
            try await dialer.nextPeer().acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
            #expect(dialer.dialRequests.count == 3)
        }
    }

    @Test("a pin mismatch from the dialer shows in the status and backs off normally")
    func pinMismatch() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        dialer.failNextDial("TLS handshake failed: pin mismatch (leaf 3a3a…)")
        let clock = ManualClock()
        let connection = try Fixtures.connection(
            endpoint: try GatewayEndpoint.parse("wss://gw.example.com"), dialer: dialer, store: store, clock: clock)
        try store.setPin(
            TLSFingerprint(String(repeating: "ab", count: 32))!, source: .setupCode, for: connection.gatewayKey)
        try await withRunning(connection) {
            let state = try await Fixtures.waitForState(connection) {
                if case .waiting = $0 { return true }
                return false
            }
            guard case .waiting(let retryIn, let cause) = state else { return }
            #expect(retryIn == .seconds(1))
            #expect(cause.hasPrefix("TLS pin mismatch"))
            #expect(dialer.dialRequests.first?.tlsPinSHA256 == String(repeating: "ab", count: 32))
            try await clock.advanceToSleeper(in: .seconds(1))
            try await dialer.nextPeer().acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
        }
    }

    @Test("stop() closes with 1000 and run() returns")
    func stop() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let connection = try Fixtures.connection(dialer: dialer, store: store)
        let runner = Task { await connection.run() }
        let peer = try await dialer.nextPeer()
        try await peer.acceptConnect()
        try await Fixtures.waitForState(connection) { $0.isConnected }
        await connection.stop()
        let close = try await peer.nextClose()
        #expect(close.code == 1000)
        await runner.value
        #expect(await connection.state == .stopped)
        await #expect(throws: GatewayError.stopped) { try await connection.request(method: "node.event") }
    }
}
