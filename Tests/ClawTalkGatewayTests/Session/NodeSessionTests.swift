import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

@Suite("Node session: invokes, events, re-subscription", .timeLimit(.minutes(1)))
struct NodeSessionTests {
    struct Setup {
        let connection: GatewayConnection
        let session: NodeSession
        let dialer: ScriptedDialer
        let store: GatewayStore
        let nodeId: String
        /// Drives the connection's and the session's timers.
        let clock: ManualClock
        /// The session's log.
        let log: RecordingLogSink
    }

    /// A running node connection + session on one manual clock, connected to a first peer, with
    /// `register` applied.
    private func running(
        presence: Bool = false, register: (NodeSession) async -> Void = { _ in },
        _ body: (Setup, ScriptedPeer) async throws -> Void
    ) async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let clock = ManualClock()
        let connection = try Fixtures.connection(dialer: dialer, store: store, clock: clock)
        let log = RecordingLogSink()
        let session = NodeSession(
            connection: connection, clock: clock, logger: Logger(category: "test", minimumLevel: .debug, sink: log),
            sendsPresenceOnConnect: presence)
        await register(session)
        let sessionTask = Task { await session.run() }
        defer { sessionTask.cancel() }
        try await withRunning(connection) {
            let peer = try await dialer.nextPeer()
            try await peer.acceptConnect()
            #expect(await eventually { await session.isConnected })
            let setup = Setup(
                connection: connection, session: session, dialer: dialer, store: store,
                nodeId: try Fixtures.identity().deviceId, clock: clock, log: log)
            try await body(setup, peer)
        }
    }

    private func invoke(
        _ peer: ScriptedPeer, id: String, nodeId: String, command: String = "talk.ptt.start",
        params: WireJSON? = "{}", timeoutMs: Int = 10_000, key: String? = nil
    ) {
        var payload: WireObject = [
            "id": .string(id), "nodeId": .string(nodeId), "command": .string(command),
            "timeoutMs": .integer(Int64(timeoutMs)),
        ]
        if let params { payload["paramsJSON"] = params }
        if let key { payload["idempotencyKey"] = .string(key) }
        peer.sendEvent("node.invoke.request", payload: .object(payload))
    }

    /// The next `node.invoke.result` params, acknowledged like the gateway does.
    private func result(_ peer: ScriptedPeer) async throws -> WireJSON {
        let request = try await peer.nextRequest(method: "node.invoke.result")
        peer.respond(to: request, payload: ["ok": true])
        return try #require(request.params)
    }

    @Test("a handler's payload goes out as node.invoke.result {id, nodeId, ok, payloadJSON}")
    func success() async throws {
        let seen = Mutex<InvokeContext?>(nil)
        try await running(register: { session in
            await session.register("talk.ptt.start") { context in
                seen.locked { $0 = context }
                return ["captureId": "c-12"]
            }
        }) { setup, peer in
            invoke(peer, id: "inv-1", nodeId: setup.nodeId, params: "{\"sessionKey\":\"main\",\"unknown\":1}")
            let params = try await result(peer)
            #expect(
                params == [
                    "id": "inv-1", "nodeId": .string(setup.nodeId), "ok": true,
                    "payloadJSON": "{\"captureId\":\"c-12\"}",
                ])
            let context = try #require(seen.locked { $0 })
            #expect(context.params["sessionKey"] == "main")
            #expect(context.epoch == 1)
            #expect(context.timeout == .seconds(10))
        }
    }

    @Test("undeclared or unregistered commands and bad params are INVALID_REQUEST, without running")
    func invalid() async throws {
        let gate = Gate()
        try await running(register: { session in
            await session.register("talk.ptt.start") { _ in
                gate.bump("ran")
                return .null
            }
        }) { setup, peer in
            invoke(peer, id: "a", nodeId: setup.nodeId, command: "camera.snap")
            let answer1 = try await result(peer)
            #expect(
                answer1["error"] == [
                    "code": "INVALID_REQUEST", "message": "INVALID_REQUEST: unsupported command camera.snap",
                ])
            invoke(peer, id: "b", nodeId: setup.nodeId, command: "talk.ptt.stop")
            let answer2 = try await result(peer)
            #expect(answer2["error"]?["code"] == "INVALID_REQUEST")
            invoke(peer, id: "c", nodeId: setup.nodeId, params: "[1,2]")
            let answer3 = try await result(peer)
            #expect(answer3["error"]?["code"] == "INVALID_REQUEST")
            invoke(peer, id: "d", nodeId: setup.nodeId, params: .integer(5))
            let answer4 = try await result(peer)
            #expect(answer4["error"]?["code"] == "INVALID_REQUEST")
            #expect(gate.count("ran") == 0)
        }
    }

    @Test("handlers run off the receive loop, at most 8 at once; the 9th is UNAVAILABLE node busy")
    func busy() async throws {
        let gate = Gate()
        try await running(register: { session in
            await session.register("talk.ptt.start") { _ in
                gate.bump("started")
                await gate.wait()
                return .null
            }
        }) { setup, peer in
            for index in 0..<9 { invoke(peer, id: "r\(index)", nodeId: setup.nodeId) }
            let busy = try await result(peer)
            #expect(busy["id"] == "r8")
            #expect(busy["error"] == ["code": "UNAVAILABLE", "message": "UNAVAILABLE: node busy, retry"])
            #expect(await eventually { gate.count("started") == 8 })
            #expect(await setup.session.runningInvokes == 8)
            gate.open()
            var ids: Set<String> = []
            for _ in 0..<8 { ids.insert(try #require(try await result(peer)["id"]?.stringValue)) }
            #expect(ids == Set((0..<8).map { "r\($0)" }))
        }
    }

    @Test("local timeout: UNAVAILABLE node invoke timed out, and the handler is cancelled")
    func timeout() async throws {
        let gate = Gate()
        try await running(register: { session in
            await session.register("talk.ptt.start") { _ in
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    gate.bump("cancelled")
                    throw error
                }
                return .null
            }
            await session.register("talk.ptt.stop") { _ in .null }
        }) { setup, peer in
            invoke(peer, id: "slow", nodeId: setup.nodeId, timeoutMs: 1_000)
            try await setup.clock.advanceToSleeper(in: .seconds(1))
            let params = try await result(peer)
            #expect(params["error"] == ["code": "UNAVAILABLE", "message": "UNAVAILABLE: node invoke timed out"])
            #expect(await eventually { gate.count("cancelled") == 1 })
            // The barrier: a quick invoke after the cancelled handler ended. A second result for
            // "slow" would come before its result.
            invoke(peer, id: "barrier", nodeId: setup.nodeId, command: "talk.ptt.stop")
            #expect(try await result(peer)["id"] == "barrier")
            #expect(!peer.inbox.queued.contains { if case .message = $0 { return true } else { return false } })
        }
    }

    @Test("a repeated idempotencyKey returns the stored result under the new id without re-running")
    func idempotency() async throws {
        let gate = Gate()
        try await running(register: { session in
            await session.register("talk.ptt.start") { _ in
                gate.bump("ran")
                return ["captureId": .string("c-\(gate.count("ran"))")]
            }
        }) { setup, peer in
            invoke(peer, id: "first", nodeId: setup.nodeId, key: "idem-1")
            let first = try await result(peer)
            invoke(peer, id: "second", nodeId: setup.nodeId, key: "idem-1")
            let second = try await result(peer)
            #expect(first["payloadJSON"] == "{\"captureId\":\"c-1\"}")
            #expect(second["id"] == "second")
            #expect(second["payloadJSON"] == first["payloadJSON"])
            #expect(gate.count("ran") == 1)
        }
    }

    @Test("a result for a socket that has gone is dropped, never replayed on the new one")
    func epochDrop() async throws {
        let gate = Gate()
        try await running(register: { session in
            await session.register("talk.ptt.start") { _ in
                gate.bump("started")
                await gate.wait()
                gate.bump("finished")
                return .null
            }
        }) { setup, peer in
            invoke(peer, id: "old", nodeId: setup.nodeId)
            #expect(await eventually { gate.count("started") == 1 })
            peer.close(code: 1006, reason: "network")
            try await Fixtures.reconnect(setup.connection, after: .seconds(1), on: setup.clock)
            let next = try await setup.dialer.nextPeer()
            try await next.acceptConnect()
            #expect(await eventually { await setup.connection.epoch == 2 })
            #expect(await eventually { await setup.connection.isConnected })
            gate.open()
            // The barrier: the session refused the old socket's result (it logs the drop).
            #expect(
                await eventually {
                    setup.log.records.contains { $0.event == "invoke.result.dropped" && $0.fields["id"] == "old" }
                })
            #expect(next.inbox.queued.isEmpty)
        }
    }

    @Test("onSocketClosed hears the epoch of each socket that ends, and of the live one when the session stops")
    func socketClosed() async throws {
        let closed = Mutex<[Int]>([])
        let stopped: NodeSession = try await {
            var kept: NodeSession?
            try await running(register: { session in
                await session.onSocketClosed { epoch in closed.locked { $0.append(epoch) } }
            }) { setup, peer in
                kept = setup.session
                peer.close(code: 1012, reason: "service restart")
                #expect(await eventually { closed.locked { $0 } == [1] })
                try await Fixtures.reconnect(setup.connection, after: .milliseconds(500), on: setup.clock)
                let next = try await setup.dialer.nextPeer()
                try await next.acceptConnect()
                #expect(await eventually { await setup.session.isConnected })
                #expect(closed.locked { $0 } == [1])
            }
            return try #require(kept)
        }()
        // The session task was cancelled while socket 2 was live.
        #expect(await eventually { closed.locked { $0 } == [1, 2] })
        #expect(await stopped.isConnected == false)
    }

    @Test("node.invoke.cancel cancels a running handler; an early cancel applies on arrival")
    func cancel() async throws {
        let gate = Gate()
        try await running(register: { session in
            await session.register("talk.ptt.once") { _ in
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    gate.bump("cancelled")
                    throw NodeError.pttCancelled
                }
                return .null
            }
        }) { setup, peer in
            invoke(peer, id: "run", nodeId: setup.nodeId, command: "talk.ptt.once")
            #expect(await eventually { await setup.session.runningInvokes == 1 })
            peer.sendEvent("node.invoke.cancel", payload: ["invokeId": "run", "nodeId": .string(setup.nodeId)])
            let cancelled = try await result(peer)
            #expect(
                cancelled["error"] == [
                    "code": "UNAVAILABLE", "message": "PTT_CANCELLED: push-to-talk start was cancelled",
                ])

            peer.sendEvent("node.invoke.cancel", payload: ["invokeId": "early", "nodeId": .string(setup.nodeId)])
            invoke(peer, id: "early", nodeId: setup.nodeId, command: "talk.ptt.once")
            let early = try await result(peer)
            #expect(early["id"] == "early")
            #expect(early["error"]?["message"] == "PTT_CANCELLED: push-to-talk start was cancelled")
            #expect(gate.count("cancelled") == 2)
        }
    }

    @Test("invokes and cancels for another nodeId are ignored")
    func foreignNode() async throws {
        let gate = Gate()
        try await running(register: { session in
            await session.register("talk.ptt.start") { _ in
                gate.bump("ran")
                return .null
            }
        }) { setup, peer in
            invoke(peer, id: "x", nodeId: "someone-else")
            invoke(peer, id: "y", nodeId: setup.nodeId)
            let answered = try await result(peer)
            #expect(answered["id"] == "y")
            #expect(gate.count("ran") == 1)
        }
    }

    @Test("chat.subscribe is re-sent after every hello-ok, with presence {trigger:connect}")
    func resubscribe() async throws {
        try await running(presence: true) { setup, peer in
            let presence = try await peer.nextRequest(method: "node.event")
            #expect(presence.params?["event"] == "node.presence.alive")
            let presencePayload = try WireJSON(parsing: try #require(presence.params?["payloadJSON"]?.stringValue))
            #expect(presencePayload["trigger"] == "connect")
            peer.respond(to: presence, payload: ["ok": true, "event": "node.presence.alive", "handled": true])

            async let subscribed: Void = setup.session.subscribeChat(sessionKey: "main")
            let subscribe = try await peer.nextRequest(method: "node.event")
            #expect(subscribe.params == ["event": "chat.subscribe", "payloadJSON": "{\"sessionKey\":\"main\"}"])
            peer.respond(to: subscribe, payload: ["ok": true, "event": "chat.subscribe", "handled": true])
            try await subscribed

            peer.close(code: 1012, reason: "service restart")
            try await Fixtures.reconnect(setup.connection, after: .milliseconds(500), on: setup.clock)
            let next = try await setup.dialer.nextPeer()
            try await next.acceptConnect()
            var events: [String] = []
            for _ in 0..<2 {
                let request = try await next.nextRequest(method: "node.event")
                events.append(try #require(request.params?["event"]?.stringValue))
                if request.params?["event"] == "chat.subscribe" {
                    #expect(request.params?["payloadJSON"] == "{\"sessionKey\":\"main\"}")
                }
                next.respond(to: request, payload: ["ok": true])
            }
            #expect(events == ["chat.subscribe", "node.presence.alive"])
        }
    }

    @Test("voicewake.changed is surfaced live and persisted for the gateway key")
    func voiceWake() async throws {
        try await running { setup, peer in
            let triggers = setup.session.voiceWakeTriggers()
            peer.sendEvent("voicewake.changed", payload: ["triggers": ["hey claw", "computer"]])
            var iterator = triggers.makeAsyncIterator()
            #expect(await iterator.next() == ["hey claw", "computer"])
            let key = setup.connection.gatewayKey
            let persisted = try await eventually {
                try setup.store.voiceWakeTriggers(for: key) == ["hey claw", "computer"]
            }
            #expect(persisted)
        }
    }

    @Test("sendEvent returns the gateway's answer")
    func sendEvent() async throws {
        try await running { setup, peer in
            async let answer = setup.session.sendEvent(
                try .voiceTranscript(
                    VoiceTranscriptEvent(text: "turn on the lights", sessionKey: "main", eventId: "e-1")))
            let request = try await peer.nextRequest(method: "node.event")
            #expect(request.params?["event"] == "voice.transcript")
            peer.respond(
                to: request, payload: ["ok": true, "event": "voice.transcript", "handled": false, "reason": "no agent"])
            let result = try await answer
            #expect(result == NodeEventResult(ok: true, event: "voice.transcript", handled: false, reason: "no agent"))
        }
    }
}
