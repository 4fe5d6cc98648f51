import ClawTalkProtocol
import Testing

@testable import ClawTalkTalk

extension TalkModeStateMachineTests {

    @Test func onsetOf150msPausesAndAsksForAConfirmation() {
        var machine = Self.speaking()
        #expect(Self.frames(&machine, speech: true, seconds: 0.12) == [])
        #expect(
            Self.frames(&machine, speech: true, seconds: 0.04) == [.pauseReply(true)], "paused once 150 ms is reached")
        #expect(machine.isReplyPaused)
        #expect(Self.frames(&machine, speech: true, seconds: 0.38) == [])
        #expect(Self.frames(&machine, speech: true, seconds: 0.04) == [.checkBargeIn])
    }

    @Test func speechInTheFirstHalfSecondOfAReplyDoesNotCount() {
        var machine = Self.listening()
        _ = Self.frames(&machine, speech: true, seconds: 0.3)
        _ = Self.frames(&machine, speech: false, seconds: 0.7)
        _ = machine.handle(.transcribed("hi"))
        _ = machine.handle(.delivered(expectsReply: true))
        _ = machine.handle(.replyStarted)
        #expect(Self.frames(&machine, speech: true, seconds: 0.5) == [], "residual echo while the canceller converges")
        #expect(Self.frames(&machine, speech: true, seconds: 0.14) == [])
        #expect(Self.frames(&machine, speech: true, seconds: 0.02) == [.pauseReply(true)], "counted from 0.5 s on")
    }

    @Test func aBurstTooShortForATurnIsDroppedWithoutTranscribing() {
        var machine = Self.listening()
        _ = Self.frames(&machine, speech: true, seconds: 0.16)
        #expect(Self.frames(&machine, speech: false, seconds: 0.7) == [.restartTurn])
        #expect(machine.phase == .listening)
        #expect(machine.isCapturing)
        _ = Self.frames(&machine, speech: true, seconds: 0.2)
        #expect(Self.frames(&machine, speech: false, seconds: 0.7).first == .finishCapture)
    }

    @Test func aConfirmedBargeInStopsSpeechRecordsTheInterruptionAndKeepsCapturing() {
        var machine = Self.speaking()
        _ = Self.frames(&machine, speech: true, seconds: 0.6)
        #expect(
            machine.handle(.bargeInTranscript("wait, what about tomorrow", confidence: nil))
                == [
                    .stopSpeech(recordInterruption: true), .pauseReply(false), .keepInterruptingSpeech,
                    .report(Self.params(true, .listening)),
                ])
        #expect(machine.phase == .listening)
        #expect(machine.isCapturing, "the interrupting speech is the next turn")
        #expect(machine.handle(.replyFinished) == [], "the stopped reply's end changes nothing")
        #expect(Self.frames(&machine, speech: true, seconds: 0.5) == [])
        #expect(Self.frames(&machine, speech: false, seconds: 0.7).first == .finishCapture)
    }

    @Test func theEchoIsNotABargeIn() {
        var machine = Self.speaking(spoken: "The forecast says: sunny,  and WARM today.")
        _ = Self.frames(&machine, speech: true, seconds: 0.6)
        #expect(
            machine.handle(.bargeInTranscript("sunny and warm", confidence: nil)) == [.pauseReply(false)],
            "volume restored, playback goes on")
        #expect(machine.phase == .speaking)
        #expect(!machine.isReplyPaused)
    }

    /// The reply's echo right after its guard: the "speech" ends when the reply pauses, and
    /// speech-to-text makes words of the fragment that are not the reply's text.
    @Test func speechThatEndsWithThePauseIsTheEchoWhateverItsWords() {
        var machine = Self.speaking(spoken: "Once upon a time a small robot lived by the sea.")
        #expect(Self.frames(&machine, speech: true, seconds: 0.16) == [.pauseReply(true)])
        #expect(Self.frames(&machine, speech: false, seconds: 0.5) == [.checkBargeIn])
        #expect(
            machine.handle(.bargeInTranscript("It's a product.", confidence: nil)) == [.pauseReply(false)],
            "resumed: nothing went on once the reply fell silent")
        #expect(machine.phase == .speaking)
        // The same words with the voice going on through the pause are an interruption.
        var voice = Self.speaking(spoken: "Once upon a time a small robot lived by the sea.")
        _ = Self.frames(&voice, speech: true, seconds: 0.6)
        #expect(
            voice.handle(.bargeInTranscript("It's a product.", confidence: nil)).first
                == .stopSpeech(recordInterruption: true))
    }

    @Test func aVoiceThatGoesOnHoldsThePauseUntilTheVerdict() {
        var machine = Self.speaking()
        _ = Self.frames(&machine, speech: true, seconds: 0.16)
        #expect(machine.isReplyPaused)
        let actions = Self.frames(&machine, speech: true, seconds: 1.0)
        #expect(actions == [.checkBargeIn], "the user is still talking after 1 s: the reply stays paused")
        #expect(machine.isReplyPaused)
        #expect(
            Self.frames(&machine, speech: false, seconds: 0.5) == [],
            "the voice stopped, its check runs: still paused (no reply between the words and the verdict)")
        #expect(
            machine.handle(.bargeInTranscript("hold on, a question", confidence: nil))
                == [
                    .stopSpeech(recordInterruption: true), .pauseReply(false), .keepInterruptingSpeech,
                    .report(Self.params(true, .listening)),
                ])
        #expect(machine.phase == .listening)
    }

    @Test func aHeldPauseEndsAtItsLimitAndALateConfirmationStillStops() {
        var machine = Self.speaking()
        _ = Self.frames(&machine, speech: true, seconds: 1.16)
        #expect(machine.isReplyPaused)
        // 1 s window + the hold from the pause: up to 0.1 s before it, silence stays paused…
        let hold = TalkModeStateMachine.voiceHoldLimit
        #expect(Self.frames(&machine, speech: false, seconds: hold - 0.1) == [])
        // …and the reply plays on at the limit while the slow check still runs.
        #expect(Self.frames(&machine, speech: false, seconds: 0.2) == [.pauseReply(false)])
        #expect(machine.isCheckPending)
        #expect(
            machine.handle(.bargeInTranscript("hold on, a question", confidence: nil)).first
                == .stopSpeech(recordInterruption: true))
        #expect(machine.phase == .thinking, "the voice ended seconds ago: its turn is complete")
    }

    @Test func aSoundThatEndedInThePauseStillResumesAfterOneSecond() {
        var machine = Self.speaking()
        _ = Self.frames(&machine, speech: true, seconds: 0.16)
        // 0.2 s more of the sound, then quiet: too short a voice to hold the pause.
        _ = Self.frames(&machine, speech: true, seconds: 0.2)
        let actions = Self.frames(&machine, speech: false, seconds: 0.8)
        #expect(actions == [.checkBargeIn, .pauseReply(false)], "the reply resumes after 1 s")
        #expect(!machine.isReplyPaused)
    }

    @Test func aLateRefusalAllowsTheNextOnset() {
        var machine = Self.speaking()
        _ = Self.frames(&machine, speech: true, seconds: 0.56)
        _ = Self.frames(&machine, speech: false, seconds: 0.64)
        #expect(!machine.isReplyPaused, "resumed after 1 s")
        #expect(machine.handle(.bargeInTranscript("sunny", confidence: nil)) == [])
        _ = Self.frames(&machine, speech: false, seconds: 0.5)
        #expect(Self.frames(&machine, speech: true, seconds: 0.16) == [.pauseReply(true)])
    }

    @Test func aLowConfidenceOrStaleSpeechIsNotABargeIn() {
        var machine = Self.speaking()
        _ = Self.frames(&machine, speech: true, seconds: 0.56)
        #expect(machine.handle(.bargeInTranscript("stop please", confidence: 0.5)) == [.pauseReply(false)])
        var stale = Self.speaking()
        _ = Self.frames(&stale, speech: true, seconds: 0.2)
        _ = Self.frames(&stale, speech: false, seconds: 0.36)
        #expect(stale.handle(.bargeInTranscript("stop please", confidence: nil)) == [.pauseReply(false)])
    }

    @Test func recencyIsJudgedWhereTheTranscribedAudioEndsNotWhenASlowTranscriberAnswers() {
        var machine = Self.speaking()
        // Speech through the check request (onset 0.16 s + 0.4 s listen), then the voice stops
        // while a slow transcriber works for 1.5 s: the transcript is still of fresh speech.
        #expect(Self.frames(&machine, speech: true, seconds: 0.6).contains(.checkBargeIn))
        _ = Self.frames(&machine, speech: false, seconds: 1.5)
        let actions = machine.handle(.bargeInTranscript("wait, stop", confidence: nil))
        #expect(actions.first == .stopSpeech(recordInterruption: true))
        #expect(actions.contains(.keepInterruptingSpeech))
        #expect(machine.phase == .thinking, "the voice stopped 1.5 s ago: the turn is over")
    }

    @Test func aSpokenStopPhraseEndsTheReplyWithoutATurn() {
        var machine = Self.speaking()
        _ = Self.frames(&machine, speech: true, seconds: 0.3)
        #expect(Self.frames(&machine, speech: false, seconds: 0.3).contains(.checkBargeIn))
        #expect(
            Self.frames(&machine, speech: false, seconds: 0.6).contains(.pauseReply(false)), "not confirmed within 1 s")
        #expect(
            machine.handle(.bargeInTranscript("Stop.", confidence: nil))
                == [.stopSpeech(recordInterruption: true), .restartTurn, .report(Self.params(true, .listening))])
        #expect(machine.phase == .listening)
        #expect(!Self.frames(&machine, speech: false, seconds: 1.5).contains(.finishCapture), "nothing to send")
        #expect(Self.frames(&machine, speech: true, seconds: 0.5).isEmpty)
        #expect(Self.frames(&machine, speech: false, seconds: 0.7).contains(.finishCapture), "the next turn works")
    }

    @Test func aStopPhraseWhileTheVoiceGoesOnIsCheckedAgainAndALongerRequestInterrupts() {
        var machine = Self.speaking()
        _ = Self.frames(&machine, speech: true, seconds: 0.6)
        #expect(machine.handle(.bargeInTranscript("stop")) == [.checkBargeIn])
        _ = Self.frames(&machine, speech: true, seconds: 0.3)
        #expect(machine.handle(.bargeInTranscript("stop")) == [.checkBargeIn])
        _ = Self.frames(&machine, speech: true, seconds: 0.3)
        #expect(
            machine.handle(.bargeInTranscript("stop the music"))
                == [
                    .stopSpeech(recordInterruption: true), .pauseReply(false), .keepInterruptingSpeech,
                    .report(Self.params(true, .listening)),
                ])
        var short = Self.speaking()
        _ = Self.frames(&short, speech: true, seconds: 0.6)
        #expect(short.handle(.bargeInTranscript("stop")) == [.checkBargeIn])
        _ = Self.frames(&short, speech: false, seconds: 0.5)
        #expect(
            short.handle(.bargeInTranscript("stop please"))
                == [
                    .stopSpeech(recordInterruption: true), .pauseReply(false), .restartTurn,
                    .report(Self.params(true, .listening)),
                ])
    }

    @Test func aFailedCheckRestoresTheVolume() {
        var machine = Self.speaking()
        _ = Self.frames(&machine, speech: true, seconds: 0.6)
        _ = Self.frames(&machine, speech: false, seconds: 0.4)
        #expect(machine.handle(.bargeInTranscript(nil)) == [.pauseReply(false)], "the voice stopped: no second try")
    }

    @Test func whileTheVoiceGoesOnAnUnrecognisedCheckIsAskedAgainTwice() {
        var machine = Self.speaking()
        _ = Self.frames(&machine, speech: true, seconds: 0.6)
        #expect(machine.handle(.bargeInTranscript("")) == [.checkBargeIn])
        #expect(machine.handle(.bargeInTranscript(nil)) == [.checkBargeIn])
        #expect(machine.handle(.bargeInTranscript("")) == [.pauseReply(false)], "at most two more tries")
        var second = Self.speaking()
        _ = Self.frames(&second, speech: true, seconds: 0.6)
        #expect(second.handle(.bargeInTranscript("no")) == [.checkBargeIn])
        #expect(
            second.handle(.bargeInTranscript("no, stop"))
                == [
                    .stopSpeech(recordInterruption: true), .pauseReply(false), .keepInterruptingSpeech,
                    .report(Self.params(true, .listening)),
                ])
        var echo = Self.speaking()
        _ = Self.frames(&echo, speech: true, seconds: 0.6)
        #expect(
            echo.handle(.bargeInTranscript("sunny and warm")) == [.pauseReply(false)], "the echo is not asked again")
    }

    @Test func noBargeInWhenInterruptOnSpeechIsOff() {
        var machine = Self.speaking()
        _ = machine.handle(.setBargeIn(.halfDuplex))
        #expect(Self.frames(&machine, speech: true, seconds: 2) == [])
        #expect(!machine.isReplyPaused)
    }

    @Test func theReplyEndingWhileNothingIsCheckedListensAfresh() {
        var machine = Self.speaking()
        _ = Self.frames(&machine, speech: true, seconds: 0.2)
        #expect(machine.isReplyPaused)
        #expect(
            machine.handle(.replyFinished)
                == [.pauseReply(false), .cancelCapture, .startCapture, .report(Self.params(true, .listening))])
    }
}
