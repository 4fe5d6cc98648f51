import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@Suite("Operator session (protocol.md §14)", .timeLimit(.minutes(1)))
struct OperatorSessionTests {
    static let methods = ["voicewake.get", "talk.config", "talk.mode", "chat.send"]

    /// A running operator connection (on the manual clock passed to `body`) and its session.
    private func running(
        _ body: (GatewayConnection, OperatorSession, ScriptedDialer, GatewayStore, ManualClock) async throws -> Void
    ) async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let clock = ManualClock()
        let connection = try Fixtures.connection(
            role: .operator, dialer: dialer, store: store, sharedToken: "shared", clock: clock)
        let session = OperatorSession(connection: connection)
        let sessionTask = Task { await session.run() }
        defer { sessionTask.cancel() }
        try await withRunning(connection) {
            try await body(connection, session, dialer, store, clock)
        }
    }

    /// Accepts an operator connect and answers the automatic `voicewake.get`.
    @discardableResult
    private func acceptOperator(
        _ peer: ScriptedPeer, methods: [String] = methods, triggers: [String] = ["openclaw"]
    ) async throws -> RequestFrame {
        let connect = try await peer.acceptConnect(
            hello: TestHello.payload(methods: methods, role: "operator", scopes: ["operator.read", "operator.write"]))
        if methods.contains("voicewake.get") {
            let get = try await peer.nextRequest()
            #expect(get.method == "voicewake.get")
            peer.respond(to: get, payload: ["triggers": .array(triggers.map(WireJSON.string))])
        }
        return connect
    }

    @Test("operator connect: gateway-client/backend, read+write scopes signed in order, no node fields")
    func connectFields() async throws {
        try await running { connection, session, dialer, store, _ in
            let peer = try await dialer.nextPeer()
            let connect = try await acceptOperator(peer, triggers: ["hey claw"])
            let params = try #require(connect.params)
            #expect(params["role"] == "operator")
            #expect(params["scopes"] == ["operator.read", "operator.write"])
            #expect(params["client"]?["id"] == "gateway-client")
            #expect(params["client"]?["mode"] == "backend")
            #expect(params["caps"] == nil)
            #expect(params["commands"] == nil)
            #expect(params["permissions"] == nil)
            #expect(params["auth"] == ["token": "shared"])
            #expect(try GatewayConnectionHandshakeTests.signatureVerifies(params, version: .v3))
            let triggers = session.voiceWakeTriggers()
            var iterator = triggers.makeAsyncIterator()
            #expect(await iterator.next() == ["hey claw"])
            #expect(try store.voiceWakeTriggers(for: connection.gatewayKey) == ["hey claw"])
        }
    }

    @Test("INVALID_REQUEST for gateway-client/backend: retry once as cli/cli and remember the pair")
    func clientPairFallback() async throws {
        try await running { connection, _, dialer, store, clock in
            let first = try await dialer.nextPeer()
            try await first.rejectConnect(
                ErrorShape(code: "INVALID_REQUEST", message: "invalid connect params: at /client/id"))
            try await Fixtures.reconnect(connection, after: .milliseconds(250), on: clock)
            let second = try await dialer.nextPeer()
            let connect = try await acceptOperator(second)
            #expect(connect.params?["client"]?["id"] == "cli")
            #expect(connect.params?["client"]?["mode"] == "cli")
            #expect(try GatewayConnectionHandshakeTests.signatureVerifies(try #require(connect.params), version: .v3))
            try await Fixtures.waitForState(connection) { $0.isConnected }
            #expect(try store.operatorClientPair(for: connection.gatewayKey) == .cli)
        }
    }

    @Test("only advertised methods are called; others fail as method_unavailable without a request")
    func methodGate() async throws {
        try await running { _, session, dialer, _, _ in
            let peer = try await dialer.nextPeer()
            try await acceptOperator(peer)
            #expect(await eventually { await session.isConnected })
            await #expect(throws: GatewayError.methodUnavailable("talk.speak")) {
                try await session.call("talk.speak", params: ["text": "hi"])
            }
            #expect(await !session.isAvailable("talk.speak"))
            #expect(await session.isAvailable("talk.config"))
            async let config = session.call("talk.config")
            let request = try await peer.nextRequest()
            #expect(request.method == "talk.config")
            peer.respond(to: request, payload: ["config": [:]])
            let answer = try await config
            #expect(answer == ["config": [:]])
        }
    }

    @Test("FORBIDDEN/MISSING_SCOPE disables the method for the socket's lifetime only")
    func forbidden() async throws {
        try await running { connection, session, dialer, _, clock in
            let peer = try await dialer.nextPeer()
            try await acceptOperator(peer)
            #expect(await eventually { await session.isConnected })
            let refused = Task { try await session.call("talk.mode", params: ["enabled": true]) }
            let request = try await peer.nextRequest()
            peer.fail(
                request,
                error: ErrorShape(
                    code: "FORBIDDEN", message: "missing scope: operator.admin",
                    details: [
                        "code": "MISSING_SCOPE", "missingScope": "operator.admin", "requiredScopes": ["operator.admin"],
                    ]))
            await #expect(throws: GatewayError.self) { try await refused.value }
            await #expect(throws: GatewayError.methodForbidden(method: "talk.mode", missingScope: "operator.admin")) {
                try await session.call("talk.mode", params: ["enabled": true])
            }
            #expect(await !session.isAvailable("talk.mode"))

            peer.close(code: 1006, reason: "network")
            try await Fixtures.reconnect(connection, after: .seconds(1), on: clock)
            let next = try await dialer.nextPeer()
            try await acceptOperator(next)
            #expect(await eventually { await connection.epoch == 2 })
            #expect(await eventually { await session.isAvailable("talk.mode") })
        }
    }

    @Test("calls fail with notConnected while there is no live socket")
    func notConnected() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let connection = try Fixtures.connection(role: .operator, dialer: ScriptedDialer(), store: store)
        let session = OperatorSession(connection: connection)
        await #expect(throws: GatewayError.notConnected) { try await session.call("talk.config") }
    }

    @Test("subscribers see connected once the session is ready, only the events they named, then disconnected")
    func sessionSubscription() async throws {
        try await running { _, session, dialer, _, _ in
            let events = await session.subscribe(events: ["talk.mode"])
            var iterator = events.makeAsyncIterator()
            let peer = try await dialer.nextPeer()
            try await acceptOperator(peer)
            guard case .connected = await iterator.next() else {
                Issue.record("the first event is not connected")
                return
            }
            #expect(await session.isConnected, "connected comes after the session handled hello-ok")
            peer.sendEvent("chat", payload: ["state": "delta"])
            peer.sendEvent("talk.mode", payload: ["enabled": true])
            guard case .event(_, let frame) = await iterator.next() else {
                Issue.record("the named event did not come")
                return
            }
            #expect(frame.event == "talk.mode", "the unnamed chat event is not handed on")
            let late = await session.subscribe(events: [])
            var lateIterator = late.makeAsyncIterator()
            guard case .connected = await lateIterator.next() else {
                Issue.record("a subscriber of a ready session does not get connected at once")
                return
            }
            peer.close(code: 1012, reason: "restart")
            guard case .disconnected = await iterator.next() else {
                Issue.record("the close is not handed on")
                return
            }
        }
    }
}
