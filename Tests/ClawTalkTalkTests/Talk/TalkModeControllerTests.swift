import ClawTalkAudio
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Testing

@testable import ClawTalkTalk

/// Talk mode's controller with the real delivery, reply tracking and speech pipeline against the
/// test gateway; captures and transcriptions are scripted.
@Suite("Talk mode controller", .serialized, .timeLimit(.minutes(1)))
struct TalkModeControllerTests {
    static func params(_ enabled: Bool, _ phase: TalkPhase? = nil) -> TalkModeParams {
        TalkModeParams(enabled: enabled, phase: phase?.rawValue)
    }

    @Test func aTurnIsSentSpokenAndListeningResumes() async throws {
        let rig = try await TalkRig(
            .utterance(speechStart: 0.8, speech: 0.5, until: 2.2), .silence(0.2), .silence(0.2))
        await rig.controller.enter()
        #expect(try await rig.messages(1) == ["what's on my calendar"])
        try await rig.wait("listening again") { $0.phase == .listening && $0.isCapturing }
        try await GatewayHarness.wait("back to listening after speaking") {
            rig.phases.value.count >= 5
        }
        #expect(rig.phases.value == [.idle, .listening, .thinking, .speaking, .listening])
        #expect(
            rig.transcriber.audio.map(\.samples.count) == [11200],
            "transcribed from 0.5 s before the first speech (0.8 s), not from the capture's start")
        #expect(rig.stack.audio.totalSeconds > 0.25, "the reply was played")
        // The phase changes before the controller's lane has closed and opened the captures.
        await rig.controller.settle()
        #expect(rig.capturing.captures.map(\.outcome) == ["finished", "cancelled", nil])
        await rig.controller.exit()
        await rig.controller.settle()
        try await GatewayHarness.wait("off reported") { await rig.reports().count == 5 }
        #expect(
            await rig.reports() == [
                Self.params(true, .listening), Self.params(true, .thinking), Self.params(true, .speaking),
                Self.params(true, .listening), Self.params(false),
            ])
        #expect(await rig.harness.gateway.currentTalkMode.enabled == false)
        #expect(await rig.wakeCalls() == ["suspend", "resume"])
        #expect(rig.capturing.captures.last?.outcome == "cancelled")
        await rig.stop()
    }

    @Test func speechThatIsNotTheEchoBargesInAndTheNextPromptSaysSo() async throws {
        var script = OperatorScript()
        script.chatRun = [.final("It is sunny and warm today, with a light breeze from the west.")]
        script.talkSpeak = .clip(.pcm24000(durationMs: 4000))
        let rig = try await TalkRig(.utterance(speech: 0.5, until: 1.4), CaptureScript(frames: []), script: script)
        await rig.controller.enter()
        _ = try await rig.messages(1)
        rig.transcriber.set(.text("hold on, what about tomorrow"))
        try await GatewayHarness.wait("reply playing") { rig.stack.audio.items.count == 1 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await rig.controller.phase == .speaking)
        // A voice from 1.0 s (10 × the residual: paused at 1.06 s), a short pause, more speech in
        // the settled pause before the check (at 1.46 s) is asked for: the frames are handed over
        // at once, so speech after the check would race the fake transcriber's answer.
        rig.capturing.captures[1].feed(.utterance(speechStart: 1.0, speech: 0.22, until: 1.3))
        rig.capturing.captures[1].feed(.utterance(speechStart: 0, speech: 0.2, until: 0.2).later(by: 1.3))
        try await rig.wait("barge-in") { $0.phase == .listening && $0.isCapturing && !$0.isReplyPaused }
        await rig.controller.settle()
        #expect(rig.pauses.value == [true, false], "paused at the onset, resumed at the stop")
        #expect(rig.stack.audio.stops >= 1, "playback stopped")
        #expect(rig.capturing.captures.count == 2, "the interrupting speech goes on in the same capture")
        rig.capturing.captures[1].feed(.silence(0.8).later(by: 1.5))
        let messages = try await rig.messages(2)
        #expect(
            rig.transcriber.audio.map(\.samples.count) == [16000, 4800, 4800],
            "the check and the new turn start 0.3 s before the onset (1.0 s), not at the reply's start")
        let second = try #require(messages.last)
        #expect(second.hasPrefix("(The user interrupted your previous spoken reply after "), "\(second)")
        #expect(second.hasSuffix(" s.)\nhold on, what about tomorrow"), "\(second)")
        let spoke = try await rig.stack.event { if case .spoke = $0 { true } else { false } }
        guard case .spoke(_, let result) = spoke else { return }
        #expect(result.outcome == .interrupted)
        // The fake output plays in real time: how far it got depends on the machine's speed; the
        // behaviour is that it stopped before the end of the 4 s clip.
        #expect(result.playedSeconds < 4.0)
        await rig.stop()
    }

    @Test func aSpokenStopPhraseStopsTheReplyAndIsNotSent() async throws {
        var script = OperatorScript()
        script.chatRun = [.final("It is sunny and warm today, with a light breeze from the west.")]
        script.talkSpeak = .clip(.pcm24000(durationMs: 4000))
        let rig = try await TalkRig(
            .utterance(speech: 0.5, until: 1.4), CaptureScript(frames: []), script: script, sampleSeconds: 6)
        await rig.controller.enter()
        _ = try await rig.messages(1)
        rig.transcriber.set(.text("Stop."))
        try await GatewayHarness.wait("reply playing") { rig.stack.audio.items.count == 1 }
        try await Task.sleep(for: .milliseconds(300))
        // "Stop" from 1.0 s to 1.3 s, then silence.
        rig.capturing.captures[1].feed(.utterance(speechStart: 1.0, speech: 0.3, until: 2.5))
        try await rig.wait("stopped") { $0.phase == .listening && !$0.isReplyPaused }
        await rig.controller.settle()
        #expect(rig.stack.audio.stops >= 1, "playback stopped")
        rig.capturing.captures[1].feed(.silence(1.5).later(by: 2.5))
        // The barrier: the machine handled the silence (an utterance would have ended in it) and
        // its effects ran.
        await rig.capturing.captures[1].read()
        await rig.controller.settle()
        #expect(await rig.sentMessages().count == 1, "the stop phrase is not a turn")
        #expect(await rig.controller.phase == .listening)

        rig.transcriber.set(.text("what about tomorrow"))
        rig.capturing.captures[1].feed(.utterance(speechStart: 0.2, speech: 0.5, until: 1.5).later(by: 4.0))
        let second = try #require(try await rig.messages(2).last)
        #expect(second.hasPrefix("(The user interrupted your previous spoken reply after "), "\(second)")
        #expect(second.hasSuffix(" s.)\nwhat about tomorrow"), "\(second)")
        #expect(
            rig.transcriber.audio.last?.samples.count == 16000 * 6 - 59200,
            "the next turn is transcribed from 0.5 s before its own speech (4.2 s), not from the stop phrase")
        await rig.stop()
    }

    @Test func theNodesOwnEchoDoesNotBargeIn() async throws {
        var script = OperatorScript()
        script.chatRun = [.final("It is sunny and warm today.")]
        script.talkSpeak = .clip(.pcm24000(durationMs: 1500))
        let rig = try await TalkRig(
            .utterance(speech: 0.5, until: 1.4), CaptureScript(frames: []), .silence(0.2), script: script)
        await rig.controller.enter()
        _ = try await rig.messages(1)
        rig.transcriber.set(.text("Sunny and warm."))
        try await GatewayHarness.wait("reply playing") { rig.stack.audio.items.count == 1 }
        rig.capturing.captures[1].feed(.utterance(speechStart: 0.6, speech: 0.6, until: 1.2))
        try await GatewayHarness.wait("reply spoken") { rig.phases.value.count >= 5 }
        #expect(rig.pauses.value == [true, false], "paused at the onset, resumed when the check said echo")
        let spoke = try await rig.stack.event { if case .spoke = $0 { true } else { false } }
        guard case .spoke(_, let result) = spoke else { return }
        #expect(result.outcome == .finished, "the reply played to the end")
        #expect(await rig.sentMessages().count == 1)
        await rig.stop()
    }

    @Test func halfDuplexDoesNotListenWhileSpeaking() async throws {
        var script = OperatorScript()
        script.talkSpeak = .clip(.pcm24000(durationMs: 600))
        let rig = try await TalkRig(
            .utterance(speech: 0.5, until: 1.4), .silence(0.2),
            configuration: TalkModeConfiguration(bargeIn: .halfDuplex),
            script: script)
        await rig.controller.enter()
        _ = try await rig.messages(1)
        try await GatewayHarness.wait("reply spoken") { rig.phases.value.count >= 5 }
        // The phase changes before the controller's lane has opened the listening capture.
        await rig.controller.settle()
        #expect(rig.capturing.captures.count == 2, "no capture while speaking, a new one after")
        #expect(rig.pauses.value.isEmpty)
        await rig.stop()
    }

    @Test func theGatewaysToggleIsObeyedAndNotEchoed() async throws {
        let log = RecordingLogSink()
        let rig = try await TalkRig(.silence(0.2), .silence(0.2), logger: Logger(category: "test", sink: log))
        await rig.harness.gateway.setTalkMode(enabled: true)
        try await rig.wait("on") { $0.phase == .listening }
        #expect(await rig.wakeCalls() == ["suspend"])
        await rig.harness.gateway.setTalkMode(enabled: false)
        try await rig.wait("off") { $0.phase == .idle }
        #expect(await rig.wakeCalls() == ["suspend", "resume"])
        await rig.controller.enter()
        try await GatewayHarness.wait("own report") { await rig.reports().contains { $0.enabled } }
        // Requests keep their order on the socket: a report echoing the gateway's toggle would
        // have been received before this one.
        #expect(await rig.talkModeRequests() == 1, "nothing sent back")
        // The gateway's two toggles and the broadcast of our own report, each applied; then any
        // report they caused has been sent.
        try await GatewayHarness.wait("the broadcast of our report") {
            log.events.filter { $0 == "talk.mode.received" }.count == 3
        }
        await rig.controller.settle()
        await rig.controller.reportLane.drained()
        #expect(await rig.controller.phase == .listening, "the broadcast of our own report does not toggle")
        #expect(await rig.talkModeRequests() == 1)
        await rig.stop()
    }

    @Test func forbiddenTalkModeIsNotSentAgainOnThisSocket() async throws {
        let rig = try await TalkRig(
            .utterance(speech: 0.5, until: 1.4), .silence(0.2), .silence(0.2),
            gateway: { $0.talkModeRequiresAdmin = true })
        await rig.controller.enter()
        try await rig.wait("reporting stopped") { !$0.isReporting }
        _ = try await rig.messages(1)
        try await GatewayHarness.wait("turn done") { rig.phases.value.count >= 5 }
        await rig.controller.exit()
        await rig.controller.settle()
        #expect(await rig.talkModeRequests() == 1, "one refused request, then none")
        #expect(await rig.reports().isEmpty)
        await rig.stop()
    }

    @Test func theIdleTimeoutReturnsToWakeListening() async throws {
        let rig = try await TalkRig(.silence(1.2), configuration: TalkModeConfiguration(idleTimeout: 1))
        await rig.controller.enter()
        try await rig.wait("left") { $0.phase == .idle }
        await rig.controller.settle()
        #expect(await rig.wakeCalls() == ["suspend", "resume"])
        try await GatewayHarness.wait("reports") { await rig.reports().count == 2 }
        #expect(await rig.reports() == [Self.params(true, .listening), Self.params(false)])
        #expect(await rig.sentMessages().isEmpty)
        await rig.stop()
    }

    @Test func pushToTalkPausesTalkAndGivesItBack() async throws {
        let rig = try await TalkRig(.silence(0.2), .silence(0.2), .silence(0.2))
        let ptt = PTTController(
            capturing: rig.capturing, transcriber: rig.transcriber, delivery: RecordingDelivery(),
            speech: rig.stack.speech, microphone: rig.microphone)
        await rig.controller.enter()
        try await rig.wait("listening") { $0.isCapturing }
        await rig.controller.settle()
        _ = await ptt.perform(.start)
        #expect(await rig.controller.state.isPaused)
        #expect(rig.capturing.captures.first?.outcome == "cancelled", "Talk's capture closed for push-to-talk")
        _ = await ptt.perform(.cancel)
        await ptt.settle()
        try await rig.wait("resumed") { !$0.isPaused && $0.isCapturing }
        await rig.controller.settle()
        #expect(rig.capturing.captures.count == 3)
        #expect(rig.capturing.captures.map(\.outcome) == ["cancelled", "cancelled", nil])
        await rig.stop()
    }

    @Test func aWakeCommandStartsTalkWithItsFirstTurn() async throws {
        let rig = try await TalkRig(.silence(0.2), .silence(0.2))
        await rig.controller.enter(source: .wake, firstTranscript: "turn on the lights")
        #expect(try await rig.messages(1) == ["turn on the lights"])
        try await GatewayHarness.wait("listening after the reply") { rig.phases.value.count >= 4 }
        #expect(rig.phases.value == [.idle, .thinking, .speaking, .listening])
        await rig.stop()
    }
}
