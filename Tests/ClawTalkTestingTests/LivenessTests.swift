import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// Checklist items 23 and 33: ticks, stall mode and shutdown (protocol.md §4.3, §16).
@Suite(.timeLimit(.minutes(1))) struct LivenessTests {
    @Test func ticksArriveEveryIntervalWithIncreasingSeq() async throws {  // 23
        let (gateway, _) = Fixture.gateway { config in
            config.automaticTicks = true
            config.policy = HelloOk.Policy(maxPayload: 26_214_400, maxBufferedBytes: 52_428_800, tickIntervalMs: 20)
        }
        // Before connecting: the gateway's tick timer starts at hello-ok, so the third tick cannot
        // come sooner than 60 ms after this, however slowly the connect went.
        let start = ContinuousClock.now
        let result = try await connected(gateway)
        var seqs: [Int] = []
        var tickCount = 0
        while tickCount < 3 {
            let frame = try await result.client.nextFrame()
            #expect(frame["type"] == "event")
            let seq = try #require(frame["seq"]?.intValue)
            seqs.append(seq)
            if frame["event"] == "tick" {
                tickCount += 1
                #expect(frame["payload"]?["ts"]?.int64Value == Fixture.time)
            }
        }
        #expect(ContinuousClock.now - start >= .milliseconds(55))
        #expect(seqs == Array(seqs.indices))
    }

    @Test func stallModeSilencesTheSocketUntilTheClientsWatchdogCloses() async throws {  // 23
        let (gateway, _) = Fixture.gateway { config in
            config.automaticTicks = true
            config.policy = HelloOk.Policy(maxPayload: 26_214_400, maxBufferedBytes: 52_428_800, tickIntervalMs: 20)
        }
        let result = try await connected(gateway)
        _ = try await result.client.event("tick")
        let id = result.client.connection
        await gateway.stall(connection: id)
        let sentAtStall = await gateway.recordedFrames(connection: id).filter { $0.direction == .sent }.count
        // The broadcast is sent (or not) within the call: no wait needed to see nothing went out.
        await gateway.setVoiceWakeTriggers(["hey"])
        #expect(await gateway.recordedFrames(connection: id).filter { $0.direction == .sent }.count == sentAtStall)
        await gateway.resume(connection: id)
        _ = try await result.client.event("tick")
        result.client.socket.close(code: 4000, reason: "tick timeout")
        let expected = TestGatewayEvent.closed(
            connection: result.client.connection, code: 4000, reason: "tick timeout")
        #expect(try await gateway.waitForEvent { $0 == expected } == expected)
        #expect(try await attempt(gateway).ok)
    }

    @Test(arguments: [RestartExpectation.ms(1_500), .null, .absent])
    func shutdownAnnouncesThenClosesWith1012AndFailsInFlightInvokes(restart: RestartExpectation) async throws {  // 33
        let (gateway, _) = Fixture.gateway()
        let result = try await connected(gateway)
        let invoke = Task { await gateway.invoke(nodeId: Fixture.deviceId, command: "talk.ptt.once") }
        let request = try await result.client.event("node.invoke.request")
        #expect(request["payload"]?["command"] == "talk.ptt.once")
        await gateway.shutdown(reason: "update", restartExpectedMs: restart)
        let shutdown = try await result.client.event("shutdown")
        let payload = try #require(shutdown["payload"])
        #expect(payload["reason"] == "update")
        switch restart {
        case .ms(let value): #expect(payload["restartExpectedMs"]?.intValue == value)
        case .null: #expect(payload["restartExpectedMs"] == .null)
        case .absent: #expect(payload.objectValue?.keys.contains("restartExpectedMs") == false)
        }
        #expect(try await result.client.close() == (1012, "service restart"))
        #expect(await invoke.value == .disconnected)
        // Nothing is replayed on the next session.
        let again = try await attempt(gateway)
        #expect(again.ok)
        #expect(await gateway.pendingInvokeIds.isEmpty)
        let replayed = await gateway.recordedFrames(connection: again.client.connection).contains {
            $0.event == "node.invoke.request"
        }
        #expect(!replayed)
    }
}
