import ClawTalkProtocol
import Testing

@testable import ClawTalkTalk

/// Barge-in on a loaded machine: the pause takes effect late, so the double-talk settle counts
/// from when playback actually went silent, and an interruption heard only at a later onset
/// starts the turn there, not at the first (echo) onset.
extension TalkModeStateMachineTests {
    /// `seconds` of 20 ms frames at level `rms`, each captured `silence(i)` seconds after the
    /// paused reply went silent (frame `i` of the run).
    static func silenced(
        _ machine: inout Machine, _ rms: Double, speech: Bool, seconds: Double, silence: (Int) -> Double?
    ) -> [Machine.Action] {
        var out: [Machine.Action] = []
        for index in 0..<Int((seconds / 0.02).rounded()) {
            out += machine.handle(.audio(isSpeech: speech, seconds: 0.02, rms: rms, silence: silence(index)))
        }
        return out
    }

    /// A reply whose residual echo is at 0.005, then an onset at 0.05 that pauses it.
    static func pausedAtAnOnset() -> Machine {
        var machine = speaking()
        _ = levels(&machine, 0.005, speech: false, seconds: 1)
        #expect(levels(&machine, 0.05, speech: true, seconds: 0.16) == [.pauseReply(true)])
        return machine
    }

    /// The rig's load failure: the controller lagged, playback went silent only 0.3 s after the
    /// onset, and the echo heard until then (well past 0.15 s of captured audio) is no voice.
    @Test func echoHeardBeforeTheLatePauseTookEffectIsNoVoice() {
        var machine = Self.pausedAtAnOnset()
        // 0.28 s still playing (silence 0), then 0.12 s of silence: the echo dies within the settle.
        let actions = Self.silenced(&machine, 0.05, speech: true, seconds: 0.4) { index in
            index < 14 ? 0 : Double(index - 13) * 0.02
        }
        #expect(actions == [.checkBargeIn])
        #expect(
            machine.handle(.bargeInTranscript("what is the weather tomorrow")) == [.pauseReply(false)],
            "no voice once the reply was silent: its echo, garbled; the reply plays on")
        #expect(machine.phase == .speaking)
    }

    @Test func aVoiceHeardOnceThePauseSettledStopsTheReply() {
        var machine = Self.pausedAtAnOnset()
        let actions = Self.silenced(&machine, 0.05, speech: true, seconds: 0.4) { index in
            index < 4 ? 0 : Double(index - 3) * 0.02
        }
        #expect(actions == [.checkBargeIn])
        let verdict = machine.handle(.bargeInTranscript("what is the weather tomorrow"))
        #expect(verdict.first == .stopSpeech(recordInterruption: true))
        #expect(verdict.contains(.keepInterruptingSpeech))
        #expect(
            !verdict.contains { if case .interruptingSpeechStarts = $0 { true } else { false } },
            "the first onset heard the voice: the turn starts there")
    }

    /// An echo onset whose slow check runs on while the user speaks: the voice re-pauses the
    /// reply, and the interrupting turn starts at that re-pause, not at the echo before it.
    @Test func theInterruptingTurnStartsAtTheRepauseThatHeardTheVoice() {
        var machine = Self.falseOnsetUnderASlowCheck()
        #expect(Self.levels(&machine, 0.05, speech: true, seconds: 0.16) == [.pauseReply(true)])
        _ = Self.levels(&machine, 0.05, speech: true, seconds: 0.6)
        #expect(machine.handle(.bargeInTranscript("It's a product.")) == [.checkBargeIn])
        let actions = machine.handle(.bargeInTranscript("It's a product. What is the weather tomorrow?"))
        let starts = actions.compactMap {
            if case .interruptingSpeechStarts(let seconds) = $0 { seconds } else { nil }
        }
        #expect(starts.count == 1)
        #expect((0.75...0.77).contains(starts.first ?? 0), "the re-pause's run began 0.76 s ago: \(starts)")
        let start = actions.firstIndex { if case .interruptingSpeechStarts = $0 { true } else { false } }
        #expect(start.map { actions[$0 + 1] } == .keepInterruptingSpeech)
    }

    /// The rig's short-sound failure under load: a 0.22 s burst paused the reply, and the
    /// detector's smoothing carried it 0.06 s past the settle. That tail is no voice; a voice that
    /// goes on through the pause is.
    @Test func aShortTailAfterTheSettleIsNoVoiceButSpeechThatGoesOnIs() {
        for (voiced, stops) in [(0.06, false), (0.12, true)] {
            var machine = Self.pausedAtAnOnset()
            // Silent from the pause on: settled after 0.15 s, then `voiced` s of speech, then quiet.
            var actions = Self.silenced(&machine, 0.05, speech: true, seconds: 0.16 + voiced) { Double($0) * 0.02 }
            actions += Self.levels(&machine, 0.001, speech: false, seconds: 0.3 - voiced)
            #expect(actions == [.checkBargeIn])
            let verdict = machine.handle(.bargeInTranscript("what is the weather tomorrow"))
            #expect(
                (verdict.first == .stopSpeech(recordInterruption: true)) == stops,
                "\(voiced) s of voice after the settle: \(verdict)")
        }
    }
}
