import ClawTalkAudio
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkTalk

@Suite("Transcript delivery (talk.md §3)", .serialized, .timeLimit(.minutes(1)))
struct TranscriptDeliveryTests {
    static func spoke(_ event: ReplySpeaker.Event) -> Bool {
        if case .spoke = event { return true }
        return false
    }

    @Test func pushToTalkInFullModeGoesByChatSendAndTheReplyIsSpokenWithoutItsDirective() async throws {
        let harness = try GatewayHarness()
        await harness.gateway.enqueueChatRun([
            .delta("{\"voice\":\"nova\"}\nHel"), .final("{\"voice\":\"nova\"}\nHello there. How are you?"),
        ])
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness)
        await stack.speech.updateTalkConfig(TalkConfig(voiceAliases: ["nova": "voice-nova-2"]))

        let receipt = await stack.delivery.deliver("  what time is it \n", source: .pushToTalk)
        #expect(receipt.outcome == .sent(route: .chatSend))
        #expect(WireID.isLowercaseUUIDv4(receipt.id))
        let send = try #require(await harness.operatorCalls("chat.send").first)
        #expect(send["idempotencyKey"]?.stringValue == receipt.id)
        #expect(send["sessionKey"] == "main")
        #expect(send["thinking"] == "low")
        #expect(send["timeoutMs"] == 30000)
        #expect(send["message"] == "what time is it")

        let spoke = try await stack.event(Self.spoke)
        guard case .spoke(_, let result) = spoke else { return }
        #expect(result.outcome == .finished)
        #expect(result.engines == [.talkSpeak, .talkSpeak])
        let speaks = await harness.operatorCalls("talk.speak")
        #expect(speaks.map { $0["text"]?.stringValue } == ["Hello there.", "How are you?"])
        #expect(speaks.allSatisfy { $0["voiceId"] == "voice-nova-2" && $0["outputFormat"] == "pcm_24000" })
        #expect(stack.audio.formats == [AudioFormatFixture.pcm24000])
        #expect(try stack.lastReply.load()?.text == "Hello there. How are you?")
        let saved = harness.state.filePath(LastReplyStore.fileName)
        #expect(try FileManager.default.attributesOfItem(atPath: saved)[.posixPermissions] as? Int == 0o600)
        #expect(await harness.nodeEvents("voice.transcript").isEmpty)
        await stack.stop()
    }

    @Test func theInterruptionNotePrefixesTheNextPromptOnceAndTheSessionKeyFollowsTheConfig() async throws {
        let harness = try GatewayHarness()
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness)
        await stack.delivery.updateTalkConfig(TalkConfig(sessionMainKey: "home"))
        await stack.delivery.recordInterruption(afterSeconds: 3.24)
        #expect(await stack.delivery.deliver("stop that", source: .talkMode).outcome == .sent(route: .chatSend))
        #expect(await stack.delivery.deliver("next one", source: .talkMode).outcome == .sent(route: .chatSend))
        let sends = await harness.operatorCalls("chat.send")
        #expect(
            sends.map { $0["message"]?.stringValue }
                == ["(The user interrupted your previous spoken reply after 3.2 s.)\nstop that", "next one"])
        #expect(sends.allSatisfy { $0["sessionKey"] == "home" })
        try await GatewayHarness.wait("home subscribed") {
            await harness.nodeEvents("chat.subscribe").contains { $0["sessionKey"] == "home" }
        }
        await stack.stop()

        let second = try GatewayHarness()
        try await second.startBoth()
        let configured = await TalkStack(harness: second, delivery: .init(sessionKey: "kitchen"))
        await configured.delivery.updateTalkConfig(TalkConfig(sessionMainKey: "home"))
        _ = await configured.delivery.deliver("hello", source: .pushToTalk)
        #expect(await second.operatorCalls("chat.send").first?["sessionKey"] == "kitchen")
        await configured.stop()
    }

    @Test func anOperatorErrorFallsBackToVoiceTranscriptWithTheSameId() async throws {
        let harness = try GatewayHarness()
        await harness.gateway.enqueueReply(
            .error(ErrorShape(code: "INVALID_REQUEST", message: "invalid chat.send params")), for: "chat.send")
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness)
        let receipt = await stack.delivery.deliver("hello", source: .pushToTalk)
        #expect(receipt.outcome == .sent(route: .voiceTranscript))
        let transcript = try #require(await harness.nodeEvents("voice.transcript").first)
        #expect(transcript["eventId"]?.stringValue == receipt.id)
        #expect(transcript["sessionKey"] == "main")
        #expect(transcript["text"] == "hello")
        // The gateway-assigned run is adopted and its reply spoken.
        _ = try await stack.event(Self.spoke)
        #expect(await harness.operatorCalls("talk.speak").map { $0["text"]?.stringValue } == ["Hello there."])
        await stack.stop()
    }

    @Test func aTimedOutChatSendIsNeverResent() async throws {
        let harness = try GatewayHarness()
        await harness.gateway.enqueueReply(.noReply, for: "chat.send")
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness, delivery: .init(requestTimeout: .milliseconds(300)))
        let receipt = await stack.delivery.deliver("are you there", source: .pushToTalk)
        #expect(receipt.outcome == .sent(route: .chatSend))
        // The barrier: a second transcript, answered; a resend of the first would go before it.
        let next = await stack.delivery.deliver("and now", source: .pushToTalk)
        #expect(next.outcome == .sent(route: .chatSend))
        #expect(
            await harness.operatorCalls("chat.send").map { $0["message"]?.stringValue } == ["are you there", "and now"])
        #expect(await harness.nodeEvents("voice.transcript").isEmpty)
        #expect(await stack.delivery.queued.isEmpty)
        await stack.stop()
    }

    @Test(arguments: [WakeRoute.voiceTranscript, .chatSend, .agent])
    func wakeCommandsFollowTheWakeRoute(route: WakeRoute) async throws {
        let harness = try GatewayHarness()
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness, delivery: .init(wakeRoute: route, hostName: "kitchen-pi"))
        let receipt = await stack.delivery.deliver("turn on the lights", source: .voiceWake, trigger: "computer")
        switch route {
        case .voiceTranscript:
            #expect(receipt.outcome == .sent(route: .voiceTranscript))
            #expect(await harness.nodeEvents("voice.transcript").first?["text"] == "turn on the lights")
            #expect(await harness.operatorCalls("chat.send").isEmpty)
        case .chatSend:
            #expect(receipt.outcome == .sent(route: .chatSend))
            #expect(await harness.operatorCalls("chat.send").first?["message"] == "turn on the lights")
        case .agent:
            #expect(receipt.outcome == .sent(route: .agent))
            let params = try #require(await harness.operatorCalls("agent").first)
            let message = try #require(params["message"]?.stringValue)
            #expect(message.hasPrefix("This request came by voice from kitchen-pi."))
            #expect(message.hasSuffix("\nturn on the lights"))
            #expect(params["voiceWakeTrigger"] == "computer")
            #expect(params["deliver"] == true)
            #expect(params["channel"] == "last")
            #expect(params["thinking"] == "low")
            #expect(params["sessionKey"] == "main")
            #expect(params["idempotencyKey"] == nil)
        }
        await stack.stop()
    }

    @Test(arguments: [false, true])
    func nodeOnlyDeliveryAdoptsTheFirstRunAndSpeaksWithEspeak(canonicalKeys: Bool) async throws {
        let harness = try GatewayHarness { $0.canonicalChatSessionKeys = canonicalKeys }
        await harness.gateway.enqueueChatRun([
            .delta("Hal"), .final("{\"lang\":\"de-DE\",\"speed\":1.2}\nHallo zusammen. Bis bald."),
        ])
        try await harness.startNode()
        let stack = await TalkStack(harness: harness)
        let receipt = await stack.delivery.deliver("hallo", source: .pushToTalk)
        #expect(receipt.outcome == .sent(route: .voiceTranscript))
        let transcript = try #require(await harness.nodeEvents("voice.transcript").first)
        #expect(transcript == ["text": "hallo", "sessionKey": "main", "eventId": .string(receipt.id)])
        #expect(await harness.nodeEvents("chat.subscribe").contains { $0["sessionKey"] == "main" })

        let spoke = try await stack.event(Self.spoke)
        guard case .spoke(_, let result) = spoke else { return }
        #expect(result.engines == [.espeak, .espeak])
        #expect(stack.local.texts == ["Hallo zusammen.", "Bis bald."])
        #expect(stack.local.requests.allSatisfy { $0.voice == "de-de" && $0.rateWPM == 210 })
        #expect(stack.audio.formats == [AudioFormatFixture.espeak])
        #expect(await harness.operatorCalls("talk.speak").isEmpty)
        await stack.stop()
    }
}

/// Formats the fakes and the test gateway produce.
enum AudioFormatFixture {
    static let pcm24000 = ClawTalkAudio.AudioFormat(sampleRate: 24000)
    static let espeak = ClawTalkAudio.AudioFormat(sampleRate: 22050)
}
