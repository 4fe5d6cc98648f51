import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Testing

@testable import ClawTalkTalk

@Suite("Wake routing in delivery (talk.md §6.2)", .serialized, .timeLimit(.minutes(1)))
struct WakeRoutingDeliveryTests {
    static func config(_ routes: [WireJSON], defaultTarget: WireJSON = ["mode": "current"]) -> WireJSON {
        ["version": 1, "defaultTarget": defaultTarget, "routes": .array(routes), "updatedAtMs": 1]
    }

    static func waitForRoutes(_ count: Int, _ delivery: TranscriptDelivery) async throws {
        try await GatewayHarness.wait("\(count) wake routes applied") {
            await delivery.currentWakeRouting.routes.count == count
        }
    }

    @Test func aRoutedTriggerSendsItsCommandToItsSessionAndNothingElseMoves() async throws {
        var script = OperatorScript()
        script.voiceWakeRouting = Self.config([
            ["trigger": "Computer", "target": ["sessionKey": "research"]]
        ])
        let harness = try GatewayHarness(script: script)
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness, delivery: .init(wakeRoute: .chatSend))
        try await Self.waitForRoutes(1, stack.delivery)

        #expect(
            await stack.delivery.deliver("lights on", source: .voiceWake, trigger: "computer").outcome
                == .sent(route: .chatSend))
        #expect(
            await stack.delivery.deliver("lights off", source: .voiceWake, trigger: "claude").outcome
                == .sent(route: .chatSend))
        #expect(
            await stack.delivery.deliver("what time is it", source: .pushToTalk).outcome
                == .sent(route: .chatSend))
        let sends = await harness.operatorCalls("chat.send")
        #expect(sends.map { $0["sessionKey"] } == ["research", "main", "main"])
        #expect(sends.map { $0["message"] } == ["lights on", "lights off", "what time is it"])
        await stack.stop()
    }

    @Test func aRoutingChangeAppliesLiveOnTheNodeConnectionAlone() async throws {
        let harness = try GatewayHarness()
        try await harness.startNode()
        let stack = await TalkStack(harness: harness)
        #expect(
            await stack.delivery.deliver("first", source: .voiceWake, trigger: "computer").outcome
                == .sent(route: .voiceTranscript))

        await harness.gateway.setVoiceWakeRouting(
            Self.config([["trigger": "computer", "target": ["sessionKey": "kitchen"]]]))
        try await Self.waitForRoutes(1, stack.delivery)
        #expect(
            await stack.delivery.deliver("second", source: .voiceWake, trigger: "computer").outcome
                == .sent(route: .voiceTranscript))

        let transcripts = await harness.nodeEvents("voice.transcript")
        #expect(transcripts.map { $0["sessionKey"] } == ["main", "kitchen"])
        #expect(await harness.nodeEvents("chat.subscribe").contains { $0["sessionKey"] == "kitchen" })
        await stack.stop()
    }

    @Test func anAgentTargetFallsBackToTheDefaultTarget() async throws {
        var script = OperatorScript()
        script.voiceWakeRouting = Self.config(
            [["trigger": "claude", "target": ["agentId": "writer"]]], defaultTarget: ["sessionKey": "desk"])
        let harness = try GatewayHarness(script: script)
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness, delivery: .init(wakeRoute: .chatSend))
        try await Self.waitForRoutes(1, stack.delivery)

        _ = await stack.delivery.deliver("write a poem", source: .voiceWake, trigger: "claude")
        _ = await stack.delivery.deliver("and another", source: .voiceWake, trigger: "computer")
        let sends = await harness.operatorCalls("chat.send")
        #expect(sends.map { $0["sessionKey"] } == ["desk", "desk"])
        await stack.stop()
    }
}
