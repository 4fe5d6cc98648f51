import ClawTalkAudio
import Testing

@testable import ClawTalkTalk

/// The double-talk test against the far-end reference (issue 15): a burst of echo that the
/// canceller let through pauses nothing, a voice over the echo still does.
extension TalkModeStateMachineTests {
    /// Frames of `seconds` at residual level `rms` with the raw capture `input` and far end `farEnd`.
    /// With `inputBands` and `farEndBands`, the frames carry the band view too.
    static func referenced(
        _ machine: inout Machine, rms: Double, speech: Bool, input: Double, farEnd: Double, seconds: Double,
        inputBands: BandLevels = BandLevels(), farEndBands: BandLevels = BandLevels()
    ) -> [Machine.Action] {
        (0..<Int((seconds / 0.02).rounded())).flatMap { _ in
            machine.handle(
                .audio(
                    isSpeech: speech, seconds: 0.02, rms: rms, echo: true,
                    reference: EchoReference(
                        input: input, farEnd: farEnd, inputBands: inputBands, farEndBands: farEndBands)))
        }
    }

    /// A reply read through an echo path of gain 0.5 (−6 dB), cancelled down to a residual of 0.008.
    static func speakingThroughEchoPath() -> Machine {
        var machine = speaking()
        _ = referenced(&machine, rms: 0.008, speech: false, input: 0.05, farEnd: 0.1, seconds: 2)
        return machine
    }

    @Test func aBurstOfUncancelledEchoIsNoOnset() {
        var machine = Self.speakingThroughEchoPath()
        #expect(machine.echoPath.gain.map { abs($0 - 0.5) < 1e-9 } == true, "the echo path was learned")
        // 37 × the residual for 200 ms: what the canceller let through on a starved machine. The
        // microphone heard no more than the echo path always brings.
        #expect(Self.referenced(&machine, rms: 0.3, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.2) == [])
        #expect(!machine.isReplyPaused)
    }

    @Test func aVoiceOverTheEchoStillPausesAfter60ms() {
        var machine = Self.speakingThroughEchoPath()
        // A voice as loud as the far end, over its echo at −6 dB: the input is twice the echo.
        #expect(Self.referenced(&machine, rms: 0.1, speech: true, input: 0.11, farEnd: 0.1, seconds: 0.04) == [])
        #expect(
            Self.referenced(&machine, rms: 0.1, speech: true, input: 0.11, farEnd: 0.1, seconds: 0.02)
                == [.pauseReply(true)])
    }

    @Test func aVoiceTheEchoExplainsPausesOnceItLasts250ms() {
        var machine = Self.speakingThroughEchoPath()
        #expect(Self.referenced(&machine, rms: 0.1, speech: true, input: 0.06, farEnd: 0.1, seconds: 0.22) == [])
        #expect(
            Self.referenced(&machine, rms: 0.1, speech: true, input: 0.06, farEnd: 0.1, seconds: 0.04)
                == [.pauseReply(true)], "a voice as quiet as the echo interrupts, later")
    }

    @Test func aVoiceWhileTheFarEndIsSilentNeedsNoTest() {
        var machine = Self.speakingThroughEchoPath()
        #expect(
            Self.referenced(&machine, rms: 0.1, speech: true, input: 0.02, farEnd: 0, seconds: 0.06)
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

    /// A voice rises over its first frames: the fast onset goes by the run's loudest frame, not
    /// its smoothed level, which would pass the bar only at the 0.15 s onset.
    @Test func aRisingVoicePausesAt60msOnItsLoudestFrame() {
        var machine = Self.speakingThroughEchoPath()
        var actions: [Machine.Action] = []
        for rms in [0.01, 0.02] {
            actions += Self.referenced(&machine, rms: rms, speech: true, input: 0.11, farEnd: 0.1, seconds: 0.02)
        }
        #expect(actions == [])
        #expect(
            Self.referenced(&machine, rms: 0.04, speech: true, input: 0.11, farEnd: 0.1, seconds: 0.02)
                == [.pauseReply(true)], "0.04 is 5 × the residual; the smoothed level was 0.018")
    }

    /// An onset by length and level that the test holds back is counted once per speech run, so
    /// the log can show what the test prevented.
    @Test func heldOnsetsAreCountedOncePerRun() {
        var machine = Self.speakingThroughEchoPath()
        #expect(machine.speak.heldOnsets == 0)
        _ = Self.referenced(&machine, rms: 0.3, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.2)
        #expect(machine.speak.heldOnsets == 1)
        _ = Self.referenced(&machine, rms: 0.008, speech: false, input: 0.05, farEnd: 0.1, seconds: 0.1)
        _ = Self.referenced(&machine, rms: 0.3, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.1)
        #expect(machine.speak.heldOnsets == 2)
        #expect(!machine.isReplyPaused)
    }

    /// A run the echo explains interrupts at 0.25 s only by its smoothed level: one frame of
    /// echo at the level floor, in a run otherwise at the residual's level, is no voice (a
    /// false pause on the rig, 2026-12-04, before this rule).
    @Test func aRunTheEchoExplainsNeedsItsSmoothedLevelToPause() {
        var machine = Self.speakingThroughEchoPath()
        var actions = Self.referenced(&machine, rms: 0.034, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.02)
        actions += Self.referenced(&machine, rms: 0.005, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.3)
        #expect(actions == [], "the peak (0.034) passed the fast bar, the smoothed level never did")
        #expect(machine.speak.heldOnsets == 1)
    }

    /// One frame just past the margin is no evidence on its own (echo bursts reached ×1.26–1.28
    /// on a loaded machine, 2026-12-05); a second such frame, or one ×1.5 over the echo, is.
    @Test func oneFrameAtTheMarginsEdgeIsNoVoice() {
        // Echo 0.05 (gain 0.5 × far end 0.1): ×1.28 is an input of 0.064.
        var machine = Self.speakingThroughEchoPath()
        var actions = Self.referenced(&machine, rms: 0.05, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.04)
        actions += Self.referenced(&machine, rms: 0.05, speech: true, input: 0.064, farEnd: 0.1, seconds: 0.02)
        actions += Self.referenced(&machine, rms: 0.05, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.1)
        #expect(actions == [], "one frame at ×1.28 in a run the echo explains")
        #expect(machine.speak.heldOnsets == 1)

        var twice = Self.speakingThroughEchoPath()
        actions = Self.referenced(&twice, rms: 0.05, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.04)
        actions += Self.referenced(&twice, rms: 0.05, speech: true, input: 0.064, farEnd: 0.1, seconds: 0.02)
        #expect(actions == [])
        #expect(
            Self.referenced(&twice, rms: 0.05, speech: true, input: 0.064, farEnd: 0.1, seconds: 0.02)
                == [.pauseReply(true)], "a second frame over the margin")

        var clear = Self.speakingThroughEchoPath()
        actions = Self.referenced(&clear, rms: 0.05, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.04)
        #expect(actions == [])
        #expect(
            Self.referenced(&clear, rms: 0.05, speech: true, input: 0.08, farEnd: 0.1, seconds: 0.02)
                == [.pauseReply(true)], "one frame ×1.6 over the echo")
    }

    /// Two frames over the margin are evidence only when the run's smoothed level passes too: a
    /// run that passed by its loudest frame alone, two frames ×1.45 over the echo and a smoothed
    /// level far under the bar, was a false pause on a loaded machine (bench, 2026-12-05).
    @Test func twoFramesOverTheMarginNeedTheSmoothedLevelToo() {
        // Echo 0.05; ×1.45 is an input of 0.0725. The fast bar is 4 × the residual 0.008.
        var machine = Self.speakingThroughEchoPath()
        var actions = Self.referenced(&machine, rms: 0.005, speech: true, input: 0.0725, farEnd: 0.1, seconds: 0.02)
        actions += Self.referenced(&machine, rms: 0.04, speech: true, input: 0.0725, farEnd: 0.1, seconds: 0.02)
        actions += Self.referenced(&machine, rms: 0.005, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.3)
        #expect(actions == [], "the loudest frame passed the fast bar, the smoothed level never did")
        #expect(machine.speak.heldOnsets == 1)

        // The same two frames in a run whose smoothed level passes: a voice.
        var loud = Self.speakingThroughEchoPath()
        actions = Self.referenced(&loud, rms: 0.05, speech: true, input: 0.0725, farEnd: 0.1, seconds: 0.04)
        #expect(actions == [])
        #expect(
            Self.referenced(&loud, rms: 0.05, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.02)
                == [.pauseReply(true)])
    }

    /// With two frames over the echo's margin, the fast onset (60 ms) needs only the normal level
    /// (2 × the residual and the floor), not the fast one (4 ×): a voice still rising pauses the
    /// reply sooner. Without them the same level waits for the full onset, and the echo test.
    @Test func twoFramesOverTheMarginPauseAtTheNormalLevel() {
        // Residual 0.008: 0.02 is 2.5 × it and over the floor of 0.015, under the fast bar 0.032.
        var voice = Self.speakingThroughEchoPath()
        #expect(Self.referenced(&voice, rms: 0.02, speech: true, input: 0.0725, farEnd: 0.1, seconds: 0.04) == [])
        #expect(
            Self.referenced(&voice, rms: 0.02, speech: true, input: 0.0725, farEnd: 0.1, seconds: 0.02)
                == [.pauseReply(true)], "60 ms with two frames over the margin")

        var echo = Self.speakingThroughEchoPath()
        #expect(
            Self.referenced(&echo, rms: 0.02, speech: true, input: 0.05, farEnd: 0.1, seconds: 0.24) == [],
            "the echo path explains the run: it waits for 250 ms")
        #expect(echo.speak.heldOnsets == 1)

        var quiet = Self.speakingThroughEchoPath()
        #expect(
            Self.referenced(&quiet, rms: 0.012, speech: true, input: 0.0725, farEnd: 0.1, seconds: 0.3) == [],
            "under the floor: no onset however long")
    }
}

/// The double-talk test's band view (issue 15): a voice no louder than the echo overall, but
/// where the reply is quiet, pauses at the fast onset; a burst of echo the bands explain does not.
extension TalkModeStateMachineTests {
    /// A far end playing in bands 0–3 and its echo at gain 0.5 in each.
    static let farEndBands = BandLevels(SIMD8(0.05, 0.07, 0.04, 0.02, 0, 0, 0, 0))
    static let echoBands = BandLevels(farEndBands.values * 0.5)

    /// Frames of `seconds` with the raw capture's bands `bands` over the far end above.
    static func banded(
        _ machine: inout Machine, rms: Double, speech: Bool, input: Double, bands: BandLevels, seconds: Double
    ) -> [Machine.Action] {
        referenced(
            &machine, rms: rms, speech: speech, input: input, farEnd: 0.1, seconds: seconds, inputBands: bands,
            farEndBands: farEndBands)
    }

    static func speakingThroughBandedEchoPath() -> Machine {
        var machine = speaking()
        _ = banded(&machine, rms: 0.008, speech: false, input: 0.05, bands: echoBands, seconds: 2)
        return machine
    }

    @Test func aVoiceWhereTheReplyIsQuietPausesAt60msThoughNoLouderThanTheEcho() {
        var machine = Self.speakingThroughBandedEchoPath()
        // Overall only ×1.18 over the echo (the level test would wait for 250 ms), but band 3,
        // where the reply is quiet, holds ×4.5 its echo.
        var voice = Self.echoBands
        voice[3] = 0.045
        #expect(Self.banded(&machine, rms: 0.1, speech: true, input: 0.059, bands: voice, seconds: 0.04) == [])
        #expect(
            Self.banded(&machine, rms: 0.1, speech: true, input: 0.059, bands: voice, seconds: 0.02)
                == [.pauseReply(true)])
    }

    @Test func aBurstOfEchoTheBandsExplainIsNoOnset() {
        var machine = Self.speakingThroughBandedEchoPath()
        // 37 × the residual for 200 ms, ×1.1 over the echo overall, ×1.2 in every band and ×3 in
        // the quietest (more than bursts reached on the rig).
        var burst = BandLevels(Self.echoBands.values * 1.2)
        burst[3] = 0.03
        #expect(Self.banded(&machine, rms: 0.3, speech: true, input: 0.055, bands: burst, seconds: 0.2) == [])
        #expect(!machine.isReplyPaused)
        #expect(machine.speak.heldOnsets == 1)
    }
}
