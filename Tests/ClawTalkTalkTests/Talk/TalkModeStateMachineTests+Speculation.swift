import ClawTalkProtocol
import Testing

@testable import ClawTalkTalk

/// A turn transcribed at its first pause (talk.md §5.4: a final result also ends the turn).
extension TalkModeStateMachineTests {
    @Test(arguments: [
        // (speech s, then silence s, actions expected at the end of the silence)
        (1.0, 0.18, false),
        (1.0, 0.20, true),
        (1.0, 0.40, true),
        (0.1, 0.40, false),  // too little speech for a turn: nothing speculated
    ])
    func aPauseAfterSpeechAsksOnceForASpeculation(speech: Double, silence: Double, speculated: Bool) {
        var machine = Self.listening(speculating: true)
        var actions = Self.frames(&machine, speech: true, seconds: speech)
        actions += Self.frames(&machine, speech: false, seconds: silence)
        #expect(actions.filter { if case .speculate = $0 { true } else { false } }.count == (speculated ? 1 : 0))
        #expect(machine.phase == .listening, "a speculation alone never ends the turn")
    }

    @Test func aCompleteVerdictEndsTheTurnBeforeTheSilenceWindow() {
        var machine = Self.listening(speculating: true)
        _ = Self.frames(&machine, speech: true, seconds: 1)
        #expect(Self.frames(&machine, speech: false, seconds: 0.2) == [.speculate(1)])
        #expect(
            machine.handle(.turnComplete(speculation: 1)) == [.finishCapture, .report(Self.params(true, .thinking))])
        #expect(machine.phase == .thinking)
        #expect(machine.handle(.turnComplete(speculation: 1)) == [], "a second verdict changes nothing")
    }

    @Test func speechAfterTheSpeculationDropsItAndItsVerdictIsIgnored() {
        var machine = Self.listening(speculating: true)
        _ = Self.frames(&machine, speech: true, seconds: 1)
        _ = Self.frames(&machine, speech: false, seconds: 0.3)
        #expect(Self.frames(&machine, speech: true, seconds: 0.02) == [.dropSpeculation])
        #expect(machine.handle(.turnComplete(speculation: 1)) == [], "the words went on: not the end")
        #expect(machine.phase == .listening)
        #expect(Self.frames(&machine, speech: false, seconds: 0.2) == [.speculate(2)], "the next pause asks again")
        #expect(machine.handle(.turnComplete(speculation: 2)).first == .finishCapture)
    }

    @Test func withoutAVerdictTheSilenceWindowStillEndsTheTurn() {
        var machine = Self.listening(speculating: true)
        _ = Self.frames(&machine, speech: true, seconds: 1)
        let actions = Self.frames(&machine, speech: false, seconds: 0.7)
        #expect(actions == [.speculate(1), .finishCapture, .report(Self.params(true, .thinking))])
    }

    @Test func noSpeculationWhenItIsOff() {
        var configuration = TalkModeConfiguration()
        configuration.speculateAfter = nil
        var machine = Self.listening(configuration)
        _ = Self.frames(&machine, speech: true, seconds: 1)
        #expect(Self.frames(&machine, speech: false, seconds: 0.66) == [])
    }

    @Test func aVerdictWhilePushToTalkHoldsTheMicrophoneIsIgnored() {
        var machine = Self.listening(speculating: true)
        _ = Self.frames(&machine, speech: true, seconds: 1)
        _ = Self.frames(&machine, speech: false, seconds: 0.2)
        _ = machine.handle(.pttPause)
        #expect(machine.handle(.turnComplete(speculation: 1)) == [])
        #expect(machine.phase == .listening)
    }
}
