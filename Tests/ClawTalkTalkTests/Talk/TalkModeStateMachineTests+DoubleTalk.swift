import Testing

@testable import ClawTalkTalk

/// The double-talk test against the far-end reference (issue 15) as the machine uses it: its
/// rules, case by case, are ``BargeInDetectorTests``'s.
extension TalkModeStateMachineTests {
    /// Frames of `seconds` at residual level `rms` with the raw capture `input` and far end `farEnd`.
    static func referenced(
        _ machine: inout Machine, rms: Double, speech: Bool, input: Double, farEnd: Double, seconds: Double
    ) -> [Machine.Action] {
        (0..<Int((seconds / 0.02).rounded())).flatMap { _ in
            machine.handle(
                .audio(
                    isSpeech: speech, seconds: 0.02, rms: rms, echo: true,
                    reference: EchoReference(input: input, farEnd: farEnd)))
        }
    }

    /// A reply read through an echo path of gain 0.5 (−6 dB), cancelled down to a residual of 0.008.
    static func speakingThroughEchoPath() -> Machine {
        var machine = speaking()
        _ = referenced(&machine, rms: 0.008, speech: false, input: 0.05, farEnd: 0.1, seconds: 2)
        return machine
    }

    @Test func aVoiceOverTheEchoStillPausesAfter60ms() {
        var machine = Self.speakingThroughEchoPath()
        // A voice as loud as the far end, over its echo at −6 dB: the input is twice the echo.
        #expect(Self.referenced(&machine, rms: 0.1, speech: true, input: 0.11, farEnd: 0.1, seconds: 0.04) == [])
        #expect(
            Self.referenced(&machine, rms: 0.1, speech: true, input: 0.11, farEnd: 0.1, seconds: 0.02)
                == [.pauseReply(true)])
    }

    @Test func theEchoPathIsLearnedOnlyFromFramesWithoutVoice() {
        var path = EchoPathEstimate()
        #expect(path.heardBeyondEcho(EchoReference(input: 0.01, farEnd: 0.1)), "nothing learned: no test")
        for _ in 0..<EchoPathEstimate.framesToLearn { path.learn(EchoReference(input: 0.05, farEnd: 0.1)) }
        #expect(!path.heardBeyondEcho(EchoReference(input: 0.06, farEnd: 0.1)), "within the margin")
        #expect(path.heardBeyondEcho(EchoReference(input: 0.065, farEnd: 0.1)), "1.3 × the echo")
        #expect(path.excess(EchoReference(input: 0.1, farEnd: 0.1)).map { abs($0 - 2) < 1e-9 } == true)
        path.learn(EchoReference(input: 0.01, farEnd: 0.0001))
        #expect(path.frames == EchoPathEstimate.framesToLearn, "an inaudible far end teaches nothing")
        // A louder echo path is followed within a few frames, a quieter one slowly.
        for _ in 0..<30 { path.learn(EchoReference(input: 0.1, farEnd: 0.1)) }
        #expect(path.gain.map { $0 > 0.97 } == true)
        for _ in 0..<30 { path.learn(EchoReference(input: 0.05, farEnd: 0.1)) }
        #expect(path.gain.map { $0 > 0.95 } == true)
    }

    @Test func theVoiceBeingJudgedTeachesTheEchoPathNothing() {
        var machine = Self.speakingThroughEchoPath()
        _ = Self.referenced(&machine, rms: 0.1, speech: true, input: 0.2, farEnd: 0.1, seconds: 0.1)
        #expect(machine.isReplyPaused)
        // The pause's frames without detected speech (the far end's echo dying away) are not learned.
        _ = Self.referenced(&machine, rms: 0.01, speech: false, input: 0.3, farEnd: 0.1, seconds: 0.2)
        #expect(machine.echoPath.gain.map { abs($0 - 0.5) < 1e-9 } == true)
    }
}
