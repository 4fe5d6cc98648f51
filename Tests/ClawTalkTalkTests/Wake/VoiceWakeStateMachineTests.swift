import ClawTalkSpeech
import ClawTalkTalk
import Testing

private typealias Machine = VoiceWakeStateMachine
private let hit = WakeHit(trigger: "computer", engine: "test", atSeconds: 1.2, score: 0.9)

private func occurrence(command: String) -> TriggerOccurrence {
    TriggerOccurrence(
        trigger: "computer", heard: "computer", viaAlternative: false, wordRange: 0...0, triggerStart: nil,
        triggerEnd: nil, command: command, commandStart: nil)
}

/// `n` blocks of 100 ms audio.
private func blocks(_ count: Int, speech: Bool = false) -> [Machine.Event] {
    Array(repeating: .audio(.milliseconds(100), isSpeech: speech), count: count)
}

/// A machine driven through `events`; returns every action, in order.
private func run(_ machine: inout Machine, _ events: [Machine.Event]) -> [Machine.Action] {
    events.flatMap { machine.handle($0) }
}

/// A machine that verifies hits and is capturing a command after "computer".
private func capturing(command: String = "") -> Machine {
    var machine = Machine(verifiesHits: true)
    _ = run(&machine, [.enable, .stageOneHit(hit), .verified(occurrence(command: command))])
    return machine
}

@Suite struct VoiceWakeStateMachineTests {
    // MARK: Lifecycle

    @Test func enableStartsListeningAndDisableStops() {
        var machine = Machine(verifiesHits: true)
        #expect(machine.state == .stopped)
        #expect(machine.handle(.stageOneHit(hit)).isEmpty)
        #expect(machine.handle(.enable) == [.startListening(cleanBuffer: true)])
        #expect(machine.state == .listening)
        #expect(machine.handle(.enable).isEmpty)
        #expect(machine.handle(.disable) == [.stopListening])
        #expect(machine.state == .stopped)
    }

    // MARK: Stage 1 and verification

    @Test func hitIsVerifiedFirst() {
        var machine = Machine(verifiesHits: true)
        #expect(run(&machine, [.enable, .stageOneHit(hit)]) == [.startListening(cleanBuffer: true), .verify(hit)])
        #expect(machine.state == .verifying(hit))
        // A second hit while verifying is ignored.
        #expect(machine.handle(.stageOneHit(hit)).isEmpty)
    }

    @Test func verifiedTriggerPlaysChimeAndCaptures() {
        var machine = Machine(verifiesHits: true)
        let actions = run(&machine, [.enable, .stageOneHit(hit), .verified(occurrence(command: " lights on "))])
        #expect(
            Array(actions.suffix(3)) == [
                .playChime(.trigger), .stopListening, .startCapture(trigger: "computer", command: "lights on"),
            ])
        guard case .capturing(let capture) = machine.state else {
            Issue.record("not capturing: \(machine.state)")
            return
        }
        #expect(capture.command == "lights on")
        #expect(capture.heardBeyondTrigger)
    }

    @Test func rejectedHitReturnsToListening() {
        var machine = Machine(verifiesHits: true)
        let actions = run(&machine, [.enable, .stageOneHit(hit), .verificationRejected])
        #expect(actions == [.startListening(cleanBuffer: true), .verify(hit)])
        #expect(machine.state == .listening)
    }

    @Test func stageOneOnlyModeAcceptsAtOnce() {
        var machine = Machine(verifiesHits: false)
        let actions = run(&machine, [.enable, .stageOneHit(hit)])
        #expect(
            actions == [
                .startListening(cleanBuffer: true), .playChime(.trigger), .stopListening,
                .startCapture(trigger: "computer", command: ""),
            ])
    }

    @Test func verifierErrorRestartsAfter700ms() {
        var machine = Machine(verifiesHits: true)
        _ = run(&machine, [.enable, .stageOneHit(hit)])
        #expect(machine.handle(.recognitionFailed) == [.stopListening])
        #expect(machine.state == .recovering(.zero))
        #expect(run(&machine, blocks(6)).isEmpty)
        #expect(machine.handle(.stageOneHit(hit)).isEmpty)
        #expect(machine.handle(.audio(.milliseconds(100), isSpeech: false)) == [.startListening(cleanBuffer: true)])
        #expect(machine.state == .listening)
    }

    // MARK: Capture windows (talk.md §6.4)

    struct WindowCase: Sendable, CustomTestStringConvertible {
        var name: String
        var command: String
        var speechBlocks: Int
        /// 100 ms silent blocks after which the capture must still run, and the one that ends it.
        var silentBlocksBeforeEnd: Int
        var testDescription: String { name }
    }

    @Test(arguments: [
        WindowCase(name: "only the trigger: 5.0 s", command: "", speechBlocks: 0, silentBlocksBeforeEnd: 49),
        WindowCase(name: "command text: 2.0 s", command: "lights on", speechBlocks: 0, silentBlocksBeforeEnd: 19),
        WindowCase(name: "speech frames: 2.0 s", command: "", speechBlocks: 3, silentBlocksBeforeEnd: 19),
    ])
    func silenceWindowEndsTheCapture(_ window: WindowCase) {
        var machine = capturing(command: window.command)
        #expect(run(&machine, blocks(window.speechBlocks, speech: true)).isEmpty)
        #expect(run(&machine, blocks(window.silentBlocksBeforeEnd)).isEmpty)
        #expect(machine.handle(.audio(.milliseconds(100), isSpeech: false)) == [.finishCapture])
        guard case .finalizing = machine.state else {
            Issue.record("not finalizing: \(machine.state)")
            return
        }
    }

    @Test func transcriptChangeCountsAsSpeechAndResetsSilence() {
        var machine = capturing()
        _ = run(&machine, blocks(40))
        #expect(machine.handle(.commandTranscript("turn", isFinal: false)).isEmpty)
        #expect(run(&machine, blocks(19)).isEmpty)
        // An unchanged partial does not reset the silence.
        #expect(machine.handle(.commandTranscript("turn", isFinal: false)).isEmpty)
        #expect(machine.handle(.elapsed(.milliseconds(100))) == [.finishCapture])
    }

    @Test func hardStopAfter120Seconds() {
        var machine = capturing(command: "read")
        var actions: [Machine.Action] = []
        for _ in 0..<1199 { actions += machine.handle(.audio(.milliseconds(100), isSpeech: true)) }
        #expect(actions.isEmpty)
        #expect(machine.handle(.audio(.milliseconds(100), isSpeech: true)) == [.finishCapture])
    }

    // MARK: Finalize, chimes, cooldown (talk.md §6.4, §6.5)

    @Test func nonEmptyCommandIsSentWithSendChime() {
        var machine = capturing(command: "lights")
        _ = run(&machine, blocks(20))
        let actions = machine.handle(.commandTranscript("lights on please", isFinal: true))
        #expect(actions == [.playChime(.send), .send(trigger: "computer", command: "lights on please")])
        #expect(machine.state == .coolingDown(.zero))
        #expect(machine.lastSent == "lights on please")
    }

    @Test func emptyFinalFallsBackToPartialText() {
        var machine = capturing(command: "lights")
        _ = run(&machine, blocks(20))
        #expect(
            machine.handle(.commandTranscript("  ", isFinal: true)) == [
                .playChime(.send), .send(trigger: "computer", command: "lights"),
            ])
    }

    @Test func emptyCommandSendsNothingAndNoChime() {
        var machine = capturing()
        _ = run(&machine, blocks(50))
        #expect(machine.handle(.commandTranscript("", isFinal: true)).isEmpty)
        #expect(machine.state == .coolingDown(.zero))
        #expect(machine.lastSent == nil)
    }

    @Test func finalDuringCaptureSendsAtOnce() {
        var machine = capturing()
        #expect(
            machine.handle(.commandTranscript("stop", isFinal: true)) == [
                .playChime(.send), .send(trigger: "computer", command: "stop"),
            ])
    }

    @Test func restartAfter700msWithCleanBufferAndCooldownIgnoresLateCopies() {
        var machine = capturing(command: "lights on")
        _ = run(&machine, blocks(20))
        _ = machine.handle(.commandTranscript("lights on", isFinal: true))
        // The same utterance recognized twice, before the restart: ignored (talk.md §6.3.5).
        #expect(machine.handle(.commandTranscript("lights on", isFinal: true)).isEmpty)
        #expect(machine.handle(.stageOneHit(hit)).isEmpty)
        #expect(run(&machine, blocks(6)).isEmpty)
        #expect(machine.handle(.elapsed(.milliseconds(100))) == [.startListening(cleanBuffer: true)])
        // After a new trigger the same command is sent again.
        let actions = run(
            &machine,
            [.stageOneHit(hit), .verified(occurrence(command: "")), .commandTranscript("lights on", isFinal: true)])
        #expect(actions.last == .send(trigger: "computer", command: "lights on"))
    }

    @Test func hitsWithinCooldownAfterAnEarlyRestartAreIgnored() {
        let timing = Machine.Timing(cooldown: .milliseconds(350), restartDelay: .milliseconds(200))
        var machine = Machine(timing: timing, verifiesHits: true)
        _ = run(&machine, [.enable, .stageOneHit(hit), .verified(occurrence(command: "x"))])
        _ = machine.handle(.commandTranscript("x", isFinal: true))
        #expect(run(&machine, blocks(2)) == [.startListening(cleanBuffer: true)])
        #expect(machine.handle(.stageOneHit(hit)).isEmpty)
        _ = run(&machine, blocks(2))
        #expect(machine.handle(.stageOneHit(hit)) == [.verify(hit)])
    }

    @Test func transcriptionErrorDuringCaptureDropsItAndRecovers() {
        var machine = capturing(command: "lights")
        #expect(machine.handle(.recognitionFailed) == [.cancelCapture])
        #expect(machine.state == .recovering(.zero))
        #expect(run(&machine, blocks(7)) == [.startListening(cleanBuffer: true)])
        #expect(machine.lastSent == nil)
    }

    @Test func errorWhileFinalizingDropsTheCapture() {
        var machine = capturing(command: "lights")
        _ = run(&machine, blocks(20))
        #expect(machine.handle(.recognitionFailed) == [.cancelCapture])
        #expect(machine.state == .recovering(.zero))
    }

    // MARK: Suspend / resume (PTT and Talk leases, talk.md §6.5)

    @Test func suspendStopsListeningUntilEveryLeaseReturns() {
        var machine = Machine(verifiesHits: true)
        _ = machine.handle(.enable)
        #expect(machine.handle(.suspend) == [.stopListening])
        #expect(machine.handle(.suspend).isEmpty)
        #expect(machine.leases == 2)
        #expect(machine.handle(.stageOneHit(hit)).isEmpty)
        #expect(machine.handle(.resume).isEmpty)
        #expect(machine.state == .suspended)
        #expect(machine.handle(.resume) == [.startListening(cleanBuffer: true)])
        #expect(machine.state == .listening)
        #expect(machine.handle(.resume).isEmpty)
    }

    @Test func suspendCancelsACapture() {
        var machine = capturing(command: "lights")
        #expect(machine.handle(.suspend) == [.cancelCapture])
        #expect(machine.handle(.commandTranscript("lights", isFinal: true)).isEmpty)
        #expect(machine.handle(.resume) == [.startListening(cleanBuffer: true)])
    }

    @Test func disabledWhileSuspendedStaysStoppedOnResume() {
        var machine = Machine(verifiesHits: false)
        _ = run(&machine, [.enable, .suspend, .disable])
        #expect(machine.handle(.resume).isEmpty)
        #expect(machine.state == .stopped)
        #expect(machine.handle(.enable) == [.startListening(cleanBuffer: true)])
    }

    @Test func enableWhileSuspendedWaitsForResume() {
        var machine = Machine(verifiesHits: false)
        #expect(run(&machine, [.suspend, .enable]).isEmpty)
        #expect(machine.handle(.resume) == [.startListening(cleanBuffer: true)])
    }
}
