import ClawTalkProtocol
import Testing

@testable import ClawTalkTalk

/// The Talk mode rules of talk.md §5 and the barge-in row of talk.md §10, event by event.
@Suite("Talk mode state machine")
struct TalkModeStateMachineTests {
    typealias Machine = TalkModeStateMachine

    static func params(_ enabled: Bool, _ phase: TalkPhase? = nil) -> TalkModeParams {
        TalkModeParams(enabled: enabled, phase: phase?.rawValue)
    }

    /// Feeds `seconds` of 20 ms frames; returns every action.
    static func frames(_ machine: inout Machine, speech: Bool, seconds: Double) -> [Machine.Action] {
        var out: [Machine.Action] = []
        for _ in 0..<Int((seconds / 0.02).rounded()) {
            out += machine.handle(.audio(isSpeech: speech, seconds: 0.02))
        }
        return out
    }

    /// A machine that is listening with an open capture (actions of the entry discarded);
    /// without `speculating`, it never transcribes a turn ahead of its end (the rules of the other
    /// tests, action by action; +Speculation tests that part).
    static func listening(
        _ configuration: TalkModeConfiguration = TalkModeConfiguration(), speculating: Bool = false
    ) -> Machine {
        var configuration = configuration
        if !speculating { configuration.speculateAfter = nil }
        var machine = Machine(configuration: configuration)
        _ = machine.handle(.enter(.local))
        return machine
    }

    /// A machine speaking a reply to "what's the weather" whose text is `spoken`.
    static func speaking(
        _ configuration: TalkModeConfiguration = TalkModeConfiguration(), spoken: String = "It is sunny and warm today."
    ) -> Machine {
        var machine = listening(configuration)
        _ = frames(&machine, speech: true, seconds: 1)
        _ = frames(&machine, speech: false, seconds: 0.7)
        _ = machine.handle(.transcribed("what's the weather"))
        _ = machine.handle(.delivered(expectsReply: true))
        _ = machine.handle(.replySegment(spoken))
        _ = machine.handle(.replyStarted)
        _ = frames(&machine, speech: false, seconds: 0.5)  // the hold-off at the reply's start
        return machine
    }

    // MARK: - Loop

    @Test func enteringSuspendsWakeStartsCaptureAndReportsListening() {
        var machine = Machine()
        let actions = machine.handle(.enter(.local))
        #expect(
            actions == [.resetSpeechSession, .claimMicrophone, .startCapture, .report(Self.params(true, .listening))])
        #expect(machine.phase == .listening)
        #expect(machine.isCapturing)
        #expect(machine.handle(.enter(.local)) == [], "entering twice does nothing")
    }

    @Test func aWholeTurnGoesListeningThinkingSpeakingListening() {
        var machine = Self.listening()
        #expect(Self.frames(&machine, speech: true, seconds: 1.0) == [])
        #expect(Self.frames(&machine, speech: false, seconds: 0.66) == [], "0.66 s of silence is not the end")
        #expect(
            machine.handle(.audio(isSpeech: false, seconds: 0.04))
                == [.finishCapture, .report(Self.params(true, .thinking))])
        #expect(machine.phase == .thinking)
        #expect(machine.handle(.transcribed("  what's the weather ")) == [.send("what's the weather")])
        #expect(machine.handle(.delivered(expectsReply: true)) == [])
        #expect(machine.phase == .thinking)
        #expect(machine.handle(.replyStarted) == [.startCapture, .report(Self.params(true, .speaking))])
        #expect(machine.phase == .speaking)
        #expect(
            machine.handle(.replyFinished) == [.cancelCapture, .startCapture, .report(Self.params(true, .listening))])
        #expect(machine.phase == .listening)
    }

    @Test func silenceBeforeAnySpeechNeverEndsTheTurn() {
        var machine = Self.listening()
        #expect(Self.frames(&machine, speech: false, seconds: 5) == [])
        #expect(machine.phase == .listening)
    }

    @Test func theSilenceWindowIsConfigurable() {
        var machine = Self.listening(TalkModeConfiguration(silenceWindow: 2.0))
        _ = Self.frames(&machine, speech: true, seconds: 0.5)
        #expect(Self.frames(&machine, speech: false, seconds: 1.9) == [])
        #expect(Self.frames(&machine, speech: false, seconds: 0.1).first == .finishCapture)
    }

    @Test func anEmptyTranscriptReturnsToListeningWithoutSending() {
        var machine = Self.listening()
        _ = Self.frames(&machine, speech: true, seconds: 0.3)
        _ = Self.frames(&machine, speech: false, seconds: 0.7)
        #expect(machine.handle(.transcribed("   ")) == [.startCapture, .report(Self.params(true, .listening))])
        #expect(machine.phase == .listening)
        _ = Self.frames(&machine, speech: true, seconds: 0.3)
        _ = Self.frames(&machine, speech: false, seconds: 0.7)
        #expect(machine.handle(.transcribed(nil)).first == .startCapture)
    }

    @Test func aTranscriptThatGetsNoReplyReturnsToListening() {
        var machine = Self.listening()
        _ = Self.frames(&machine, speech: true, seconds: 0.3)
        _ = Self.frames(&machine, speech: false, seconds: 0.7)
        _ = machine.handle(.transcribed("hello"))
        #expect(
            machine.handle(.delivered(expectsReply: false)) == [.startCapture, .report(Self.params(true, .listening))])
    }

    @Test func aFailedReplyWhileThinkingReturnsToListening() {
        var machine = Self.listening()
        _ = Self.frames(&machine, speech: true, seconds: 0.3)
        _ = Self.frames(&machine, speech: false, seconds: 0.7)
        _ = machine.handle(.transcribed("hello"))
        #expect(machine.handle(.replyFinished) == [], "before the transcript was handed over it is not ours")
        _ = machine.handle(.delivered(expectsReply: true))
        #expect(machine.handle(.replyFinished) == [.startCapture, .report(Self.params(true, .listening))])
    }

    @Test func theMaximumUtteranceEndsATurnThatNeverPauses() {
        var machine = Self.listening(TalkModeConfiguration(maximumUtterance: 2))
        #expect(Self.frames(&machine, speech: true, seconds: 1.98) == [])
        #expect(Self.frames(&machine, speech: true, seconds: 0.02).first == .finishCapture)
    }

    @Test func aWakeCommandIsTheFirstTurn() {
        var machine = Machine()
        #expect(
            machine.handle(.enter(.wake, firstTranscript: " turn on the lights "))
                == [
                    .resetSpeechSession, .claimMicrophone, .send("turn on the lights"),
                    .report(Self.params(true, .thinking)),
                ])
        #expect(machine.phase == .thinking)
        var listening = Self.listening()
        #expect(
            listening.handle(.enter(.wake, firstTranscript: "what time is it"))
                == [.cancelCapture, .send("what time is it"), .report(Self.params(true, .thinking))])
    }

    // MARK: - Exit and idle timeout

    @Test func exitingClosesCaptureReportsOffAndReleasesTheMicrophone() {
        var machine = Self.listening()
        #expect(machine.handle(.exit(.local)) == [.cancelCapture, .report(Self.params(false)), .releaseMicrophone])
        #expect(machine.phase == .idle)
        #expect(machine.handle(.exit(.local)) == [], "leaving twice does nothing")
        #expect(Self.frames(&machine, speech: true, seconds: 1) == [], "frames after the exit are ignored")
    }

    @Test func exitingWhileSpeakingStopsSpeechWithoutAnInterruption() {
        var machine = Self.speaking()
        #expect(
            machine.handle(.exit(.local))
                == [
                    .cancelCapture, .stopSpeech(recordInterruption: false), .report(Self.params(false)),
                    .releaseMicrophone,
                ])
    }

    @Test func theIdleTimeoutLeavesTalkAfterListeningWithoutSpeech() {
        var machine = Self.listening(TalkModeConfiguration(idleTimeout: 3))
        #expect(Self.frames(&machine, speech: false, seconds: 2.98) == [])
        #expect(
            machine.handle(.audio(isSpeech: false, seconds: 0.02))
                == [.cancelCapture, .report(Self.params(false)), .releaseMicrophone])
        #expect(machine.phase == .idle)
    }

    @Test func speechRestartsTheIdleCountAndEachListeningPhaseStartsAfresh() {
        var machine = Self.listening(TalkModeConfiguration(idleTimeout: 3))
        _ = Self.frames(&machine, speech: false, seconds: 2.5)
        _ = Self.frames(&machine, speech: true, seconds: 0.2)
        _ = Self.frames(&machine, speech: false, seconds: 0.7)
        _ = machine.handle(.transcribed(""))
        #expect(Self.frames(&machine, speech: false, seconds: 2.9) == [])
        #expect(machine.phase == .listening)
        var off = Self.listening()
        #expect(Self.frames(&off, speech: false, seconds: 600) == [], "no idle timeout unless configured")
        _ = off.handle(.setIdleTimeout(1))
        #expect(
            Self.frames(&off, speech: false, seconds: 1).last == .releaseMicrophone, "set at run time (talk.config)")
    }

    @Test func theIdleTimeoutDoesNotCountWhileThinkingOrSpeaking() {
        var machine = Self.speaking(TalkModeConfiguration(idleTimeout: 1))
        #expect(Self.frames(&machine, speech: false, seconds: 5) == [])
        #expect(machine.phase == .speaking)
    }

    // MARK: - talk.mode sync

    @Test func everyPhaseChangeIsReportedOnce() {
        var machine = Machine()
        var reports: [TalkModeParams] = []
        func collect(_ actions: [Machine.Action]) {
            for case .report(let params) in actions { reports.append(params) }
        }
        collect(machine.handle(.enter(.local)))
        collect(Self.frames(&machine, speech: true, seconds: 0.5))
        collect(Self.frames(&machine, speech: false, seconds: 0.7))
        collect(machine.handle(.transcribed("hi")))
        collect(machine.handle(.delivered(expectsReply: true)))
        collect(machine.handle(.replyStarted))
        collect(machine.handle(.replyFinished))
        collect(machine.handle(.exit(.local)))
        #expect(
            reports == [
                Self.params(true, .listening), Self.params(true, .thinking), Self.params(true, .speaking),
                Self.params(true, .listening), Self.params(false),
            ])
    }

    @Test func aGatewayEventThatDiffersIsAppliedAndNotEchoed() {
        var machine = Machine()
        let on = machine.handle(.gatewayMode(enabled: true, phase: nil))
        #expect(on == [.resetSpeechSession, .claimMicrophone, .startCapture], "entered, nothing reported back")
        #expect(machine.phase == .listening)
        #expect(machine.handle(.gatewayMode(enabled: true, phase: "listening")) == [], "same state: nothing")
        let off = machine.handle(.gatewayMode(enabled: false, phase: nil))
        #expect(off == [.cancelCapture, .releaseMicrophone], "left, nothing reported back")
        #expect(machine.phase == .idle)
        #expect(machine.handle(.gatewayMode(enabled: false, phase: nil)) == [])
    }

    @Test func laterPhaseChangesAfterAGatewayEntryAreReported() {
        var machine = Machine()
        _ = machine.handle(.gatewayMode(enabled: true, phase: nil))
        _ = Self.frames(&machine, speech: true, seconds: 0.3)
        #expect(Self.frames(&machine, speech: false, seconds: 0.7).contains(.report(Self.params(true, .thinking))))
    }

    @Test func theBroadcastOfOurOwnReportIsNotMistakenForAToggle() {
        var machine = Machine()
        _ = machine.handle(.enter(.local))
        _ = machine.handle(.exit(.local))
        // The gateway broadcasts each report; the first arrives after the node already left.
        #expect(machine.handle(.gatewayMode(enabled: true, phase: "listening")) == [])
        #expect(machine.phase == .idle, "our own 'on' broadcast does not turn Talk back on")
        #expect(machine.handle(.gatewayMode(enabled: false, phase: nil)) == [])
        #expect(
            machine.handle(.gatewayMode(enabled: true, phase: nil)).contains(.startCapture),
            "a real toggle afterwards is applied")
    }

    @Test func forbiddenStopsReportingUntilTheNextHelloOk() {
        var machine = Self.listening()
        _ = Self.frames(&machine, speech: true, seconds: 0.3)
        let thinking = Self.frames(&machine, speech: false, seconds: 0.7)
        #expect(thinking.contains(.report(Self.params(true, .thinking))))
        #expect(machine.handle(.reportFailed(Self.params(true, .thinking), forbidden: true)) == [])
        #expect(!machine.isReporting)
        #expect(machine.handle(.transcribed("")) == [.startCapture], "no report after FORBIDDEN")
        #expect(machine.handle(.exit(.local)) == [.cancelCapture, .releaseMicrophone])
        _ = machine.handle(.enter(.local))
        #expect(machine.handle(.operatorConnected) == [.report(Self.params(true, .listening))])
        #expect(machine.isReporting)
    }

    @Test func anOtherFailureKeepsReporting() {
        var machine = Machine()
        _ = machine.handle(.enter(.local))
        _ = machine.handle(.reportFailed(Self.params(true, .listening), forbidden: false))
        #expect(machine.isReporting)
        #expect(machine.handle(.exit(.local)).contains(.report(Self.params(false))))
    }

    // MARK: - Push-to-talk

    @Test func pushToTalkPausesAndResumesListening() {
        var machine = Self.listening()
        #expect(machine.handle(.pttPause) == [.cancelCapture])
        #expect(machine.isPaused)
        #expect(Self.frames(&machine, speech: true, seconds: 2) == [], "paused: frames ignored")
        #expect(machine.handle(.replyStarted) == [.report(Self.params(true, .speaking))], "no capture while paused")
        #expect(machine.handle(.replyFinished) == [.report(Self.params(true, .listening))])
        #expect(machine.handle(.pttResume) == [.startCapture])
        #expect(!machine.isPaused)
        #expect(machine.handle(.pttResume) == [])
    }

    /// Talk releases the microphone whenever it ends; its owner knows that push-to-talk still
    /// holds it (``MicrophoneArbiterTests``).
    @Test func leavingWhilePausedReleasesTheMicrophone() {
        var machine = Self.listening()
        _ = machine.handle(.pttPause)
        #expect(machine.handle(.exit(.local)) == [.report(Self.params(false)), .releaseMicrophone])
        #expect(machine.handle(.pttResume) == [])
        var idle = Machine()
        #expect(idle.handle(.pttPause) == [])
    }

    // MARK: - Half-duplex

    @Test func halfDuplexCapturesNothingWhileSpeaking() {
        var machine = Self.speaking(TalkModeConfiguration(bargeIn: .halfDuplex))
        #expect(!machine.isCapturing)
        #expect(Self.frames(&machine, speech: true, seconds: 2) == [], "speech during playback is ignored")
        #expect(machine.handle(.replyFinished) == [.startCapture, .report(Self.params(true, .listening))])
    }
}
