import ClawTalkDevices
import ClawTalkNode
import ClawTalkSupport
import ClawTalkTalk
import Synchronization

/// Talk mode's barge-in onset rule (talk.md §10 fast path: ``TalkModeStateMachine`` in the
/// speaking phase) run on the bench node's front-end frames, so the bench measures the decision
/// the service makes, not the raw voice detector. Each frame reaches the machine as the
/// microphone owner hands it to Talk mode: its speech decision and level, whether the far end
/// may echo in it, and the double-talk test's reference (``EchoReference``); without the last
/// two the machine cannot hold back an onset that the echo explains, and the count would be the
/// level rule's alone. Every confirmation the machine asks for is answered with the reply's own
/// text (an echo), as if the transcriber heard the echo: the machine then restores the volume
/// and may take the next onset. Whisper is not run.
final class TalkOnsetMonitor: Sendable {
    private let machine: Mutex<TalkModeStateMachine>
    private static let replyText = "the node's own reply"

    /// A machine speaking a reply, with `configuration` (the service's defaults unless given).
    init(configuration: TalkModeConfiguration = TalkModeConfiguration()) {
        var machine = TalkModeStateMachine(configuration: configuration)
        _ = machine.handle(.enter(.local, firstTranscript: "a question"))
        _ = machine.handle(.delivered(expectsReply: true))
        _ = machine.handle(.replySegment(Self.replyText))
        _ = machine.handle(.replyStarted)
        self.machine = Mutex(machine)
    }

    /// Feeds one front-end frame; true when it started an onset (playback would pause now).
    func feed(_ frame: FrontEndFrame) -> Bool {
        let seconds = Double(frame.aec.count) / 16_000
        return machine.locked { machine in
            var actions = machine.handle(
                .audio(
                    isSpeech: frame.isSpeech, seconds: seconds, rms: frame.rms, echo: frame.echoActive,
                    reference: EchoReference(frame)))
            if actions.contains(.checkBargeIn) {
                actions += machine.handle(.bargeInTranscript(Self.replyText))
            }
            return actions.contains(.pauseReply(true))
        }
    }

    /// Speech runs that the double-talk test took for the reply's echo and held back (an onset by
    /// length and level that did not pause the reply).
    var heldBack: Int { machine.locked { $0.bargeInDetector.onsetsHeldBack } }
}
