import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkTalk

@Suite("Reply tracking (talk.md §4)", .serialized, .timeLimit(.minutes(1)))
struct ReplyTrackerTests {
    static func assistant(_ text: String, at ms: Int64) -> WireJSON {
        ["role": "assistant", "content": [["type": "text", "text": .string(text)]], "timestamp": .integer(ms)]
    }

    static func ended(_ event: ReplySpeaker.Event) -> Bool {
        switch event {
        case .spoke, .failed: true
        case .speaking: false
        }
    }

    @Test func withoutEventsTheReplyIsReadFromHistoryAfterTheQuietPeriod() async throws {
        let harness = try GatewayHarness()
        let now = DeviceIdentity.currentTimeMs()
        await harness.gateway.enqueueChatRun([])
        await harness.gateway.enqueueReply(
            .ok(["messages": [Self.assistant("An old answer.", at: now - 60_000)]]), for: "chat.history")
        await harness.gateway.enqueueReply(
            .ok([
                "messages": [
                    Self.assistant("An old answer.", at: now - 60_000),
                    Self.assistant("From history.", at: now + 60_000),
                ]
            ]), for: "chat.history")
        try await harness.startBoth()
        let timing = ReplyTracker.Timing(
            deadline: .seconds(10), historyAfter: .milliseconds(100), historyInterval: .milliseconds(50))
        let stack = await TalkStack(harness: harness, timing: timing)
        _ = await stack.delivery.deliver("anything new", source: .pushToTalk)
        let ended = try await stack.event(Self.ended)
        guard case .spoke(_, let result) = ended else {
            Issue.record("expected speech, got \(ended)")
            return
        }
        #expect(result.outcome == .finished)
        #expect(await harness.operatorCalls("talk.speak").map { $0["text"]?.stringValue } == ["From history."])
        let polls = await harness.operatorCalls("chat.history")
        #expect(polls.count == 2)
        #expect(polls.allSatisfy { $0["sessionKey"] == "main" && $0["limit"] == 20 })
        await stack.stop()
    }

    @Test func aTerminalChatSendReadsHistoryAtOnce() async throws {
        let harness = try GatewayHarness()
        let now = DeviceIdentity.currentTimeMs()
        await harness.gateway.enqueueReply(.ok(["runId": "run-ok", "status": "ok"]), for: "chat.send")
        await harness.gateway.enqueueReply(
            .ok(["messages": [Self.assistant("Done already.", at: now + 60_000)]]), for: "chat.history")
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness)
        _ = await stack.delivery.deliver("quick one", source: .pushToTalk)
        let ended = try await stack.event(Self.ended)
        #expect(Self.isFinished(ended))
        #expect(await harness.operatorCalls("talk.speak").map { $0["text"]?.stringValue } == ["Done already."])
        await stack.stop()
    }

    @Test(arguments: [
        ([ChatScriptStep.delta("Partial"), .aborted], ReplyFailure.aborted),
        ([.delta("Partial"), .error("model overloaded")], .error("model overloaded")),
    ])
    func abortedAndFailedRunsSpeakNothing(steps: [ChatScriptStep], expected: ReplyFailure) async throws {
        let harness = try GatewayHarness()
        await harness.gateway.enqueueChatRun(steps)
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness)
        _ = await stack.delivery.deliver("hello", source: .pushToTalk)
        let ended = try await stack.event(Self.ended)
        guard case .failed(_, let reason) = ended else {
            Issue.record("expected a failure, got \(ended)")
            return
        }
        #expect(reason == expected)
        #expect(await harness.operatorCalls("talk.speak").isEmpty)
        #expect(stack.audio.items.isEmpty)
        await stack.stop()
    }

    @Test func aRunWithoutAnyAnswerTimesOut() async throws {
        let harness = try GatewayHarness()
        await harness.gateway.enqueueChatRun([])
        try await harness.startBoth()
        let timing = ReplyTracker.Timing(deadline: .milliseconds(400), historyAfter: .seconds(30))
        let stack = await TalkStack(harness: harness, timing: timing)
        _ = await stack.delivery.deliver("hello?", source: .pushToTalk)
        let ended = try await stack.event(Self.ended)
        #expect(ended == .failed(turn: 1, .timedOut))
        await stack.stop()
    }

    @Test func aNewerTurnSupersedesAnUnfinishedOne() async throws {
        let harness = try GatewayHarness()
        await harness.gateway.enqueueChatRun([.pause(ms: 600), .final("Too late.")])
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness)
        _ = await stack.delivery.deliver("first question", source: .pushToTalk)
        _ = await stack.delivery.deliver("second question", source: .pushToTalk)
        let first = try await stack.event(Self.ended)
        #expect(first == .failed(turn: 1, .superseded))
        let second = try await stack.event(number: 2, Self.ended)
        #expect(Self.isFinished(second))
        // The first run's final ("Too late.") comes after the second's. A third question, answered
        // on the same socket after it, is the barrier: by its end the late final has been read.
        try await GatewayHarness.wait("the first run's late final") {
            await harness.gateway.history(sessionKey: "main").filter { $0["role"]?.stringValue == "assistant" }.count
                == 2
        }
        _ = await stack.delivery.deliver("third question", source: .pushToTalk)
        let third = try await stack.event(number: 3, Self.ended)
        #expect(Self.isFinished(third))
        #expect(
            await harness.operatorCalls("talk.speak").map { $0["text"]?.stringValue }
                == ["Hello there.", "Hello there."])
        await stack.stop()
    }

    @Test func agentDeltasAreSpokenSentenceBySentenceBeforeTheFinal() async throws {
        let harness = try GatewayHarness()
        await harness.gateway.enqueueChatRun([
            .agentText("Hello there. How"), .pause(ms: 10_000), .agentText("Hello there. How are you today?"),
            .final("Hello there. How are you today?"), .agentEnd,
        ])
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness)
        _ = await stack.delivery.deliver("hi", source: .pushToTalk)
        // The first sentence is synthesized while the run is still paused (10 s: long enough that
        // a busy machine still gets it out well within the pause).
        try await GatewayHarness.wait("first sentence", timeout: .seconds(8)) {
            await harness.operatorCalls("talk.speak").count == 1
        }
        let ended = try await stack.event(Self.ended)
        #expect(Self.isFinished(ended))
        // The node's subscription delivers the chat events a second time: no duplicates.
        #expect(
            await harness.operatorCalls("talk.speak").map { $0["text"]?.stringValue }
                == ["Hello there.", "How are you today?"])
        await stack.stop()
    }

    @Test func stoppedSpeechEndsTheTurnAndRecordsTheInterruption() async throws {
        let harness = try GatewayHarness()
        await harness.gateway.updateScript { $0.talkSpeak = .clip(.pcm24000(durationMs: 3000)) }
        await harness.gateway.enqueueChatRun([
            .agentText("One long sentence. "), .pause(ms: 1500), .final("One long sentence. Two."),
        ])
        try await harness.startBoth()
        let stack = await TalkStack(harness: harness, audio: FakeAudioOutput(realTime: true))
        _ = await stack.delivery.deliver("talk to me", source: .talkMode)
        try await GatewayHarness.wait("playing") { !stack.audio.items.isEmpty }
        try await Task.sleep(for: .milliseconds(300))
        let heard = try #require(await stack.speech.stopSpeaking(recordInterruption: true))
        // The fake output plays in real time, so how much was heard depends on the machine's speed:
        // some of the 3 s clip, not all of it.
        #expect(heard > 0 && heard < 3.0)
        let ended = try await stack.event {
            if case .spoke = $0 { return true }; return false
        }
        guard case .spoke(let turn, let result) = ended else { return }
        #expect(result.outcome == .interrupted)
        #expect(await stack.tracker.currentTurn != turn)
        // The run's final comes after the stop; the next question, answered on the same socket
        // after it, is the barrier: by its end the final has been read.
        try await GatewayHarness.wait("the run's final") {
            await harness.gateway.history(sessionKey: "main").contains { $0["role"]?.stringValue == "assistant" }
        }
        _ = await stack.delivery.deliver("wait", source: .talkMode)
        let tenths = Int((heard * 10).rounded())
        let note = "(The user interrupted your previous spoken reply after \(tenths / 10).\(tenths % 10) s.)\nwait"
        #expect(await harness.operatorCalls("chat.send").last?["message"]?.stringValue == note)
        let next = try await stack.event(number: 2) {
            if case .spoke = $0 { return true }; return false
        }
        #expect(Self.isFinished(next))
        // "Two." came after the stop: never spoken.
        #expect(
            await harness.operatorCalls("talk.speak").map { $0["text"]?.stringValue }
                == ["One long sentence.", "Hello there."])
        await stack.stop()
    }

    static func isFinished(_ event: ReplySpeaker.Event) -> Bool {
        if case .spoke(_, let result) = event { return result.outcome == .finished }
        return false
    }
}
