import ClawTalkAudio
import ClawTalkProtocol
import ClawTalkTesting
import Testing

@testable import ClawTalkTalk

/// Barge-in with a transcriber slower than the speech it confirms (a loaded machine).
extension TalkModeControllerTests {
    @Test func aLateConfirmationSendsTheInterruptionWithoutTheEchoThatFollowedIt() async throws {
        var script = OperatorScript()
        script.chatRun = [.final("It is sunny and warm today, with a light breeze from the west.")]
        script.talkSpeak = .clip(.pcm24000(durationMs: 6000))
        let rig = try await TalkRig(
            .utterance(speech: 0.5, until: 1.4), CaptureScript(frames: []), script: script, sampleSeconds: 6)
        await rig.controller.enter()
        _ = try await rig.messages(1)
        rig.transcriber.set(.slow("hold on, what about tomorrow", .seconds(2)))
        try await GatewayHarness.wait("reply playing") { rig.stack.audio.items.count == 1 }
        try await Task.sleep(for: .milliseconds(300))
        // Residual echo (quiet) until 1.0 s, the voice 1.0–1.6 s, then 2.4 s the voice detector
        // calls speech at the echo's level, all before the slow check answers.
        rig.capturing.captures[1].feed(
            CaptureScript.silence(1.0).then(.speech(from: 1.0, to: 1.6, rms: 0.1))
                .then(.speech(from: 1.6, to: 4.0, rms: 0.004)))
        let messages = try await rig.messages(2)
        let second = try #require(messages.last)
        #expect(second.hasPrefix("(The user interrupted your previous spoken reply after "), "\(second)")
        #expect(second.hasSuffix(" s.)\nhold on, what about tomorrow"), "\(second)")
        // The turn: from 0.3 s before the onset (1.0 s) to 0.7 s after the voice (1.6 s, plus
        // the level's smoothing of a few frames) — not the 6 s capture's echo after it.
        let turn = try #require(rig.transcriber.audio.last)
        #expect((1.6...1.8).contains(turn.duration), "\(turn.duration)")
        await rig.stop()
    }

    @Test func speechOverTheEndOfAReplyIsStillJudgedAndBecomesTheNextTurn() async throws {
        var script = OperatorScript()
        script.chatRun = [.final("It is sunny.")]
        script.talkSpeak = .clip(.pcm24000(durationMs: 1200))
        let rig = try await TalkRig(.utterance(speech: 0.5, until: 1.4), CaptureScript(frames: []), script: script)
        await rig.controller.enter()
        _ = try await rig.messages(1)
        // The check must answer after the reply (1.2 s of real-time fake playback, slower on a busy
        // machine) has ended: 6 s, still within the 10 s transcription limit.
        rig.transcriber.set(.slow("what about tomorrow", .seconds(6)))
        try await GatewayHarness.wait("reply playing") { rig.stack.audio.items.count == 1 }
        try await Task.sleep(for: .milliseconds(300))
        // The voice from 1.0 s goes on; the check is asked for at 1.56 s and answers after the
        // 1.2 s reply has ended.
        rig.capturing.captures[1].feed(.utterance(speechStart: 1.0, speech: 1.0, until: 2.0))
        try await rig.wait("the reply ended, the verdict pending") { $0.phase == .speaking && !$0.isReplyPaused }
        let spoke = try await rig.stack.event { if case .spoke = $0 { true } else { false } }
        guard case .spoke(_, let result) = spoke else { return }
        #expect(result.outcome == .finished, "the reply played to its end")
        try await rig.wait("judged") { $0.phase == .listening }
        #expect(rig.capturing.captures.count == 2, "the same capture carries the speech into the turn")
        rig.capturing.captures[1].feed(.silence(1.0).later(by: 2.0))
        let messages = try await rig.messages(2)
        #expect(messages.last == "what about tomorrow", "a turn of its own; nothing was interrupted")
        await rig.stop()
    }
}
