/// Who listens on the microphone (talk.md §1): push-to-talk over Talk mode over voice wake.
///
/// Talk mode and push-to-talk claim and release the microphone; voice wake listens whenever
/// neither holds it. The arbiter turns each claim or release into what the lower holders must
/// do: voice wake is suspended or resumed, Talk mode is paused for push-to-talk or resumed after
/// it. It only ever acts on a change, so wake sees strictly alternating suspends and resumes.
///
/// Pure and value-typed: ``MicrophoneClaims`` holds one and carries out its actions.
public struct MicrophoneArbiter: Sendable, Hashable {
    /// Who has the microphone.
    public enum Holder: String, Sendable, Hashable {
        /// Nobody claims it: voice wake listens (when it is enabled).
        case wake
        /// Talk mode is on.
        case talk
        /// A push-to-talk capture runs (Talk mode, if on, is paused).
        case pushToTalk
    }

    /// A claim or a release.
    public enum Event: Sendable, Hashable {
        /// Talk mode was turned on.
        case talkEntered
        /// Talk mode was turned off.
        case talkExited
        /// A push-to-talk capture is starting.
        case pushToTalkBegan
        /// The push-to-talk capture ended (delivered, cancelled or failed).
        case pushToTalkEnded
    }

    /// What the lower holders must do, in order.
    public enum Action: Sendable, Hashable {
        /// Voice wake stops listening (a wake command being captured is discarded).
        case suspendWake
        /// Voice wake listens again, with a clean buffer.
        case resumeWake
        /// Talk mode lets go of the microphone until push-to-talk ends.
        case pauseTalk
        /// Talk mode takes the microphone back where it left off.
        case resumeTalk
    }

    /// Talk mode is on.
    public private(set) var talkOn = false
    /// Push-to-talk captures running (one at a time in practice; counted so that an unmatched
    /// end cannot give the microphone away from a capture that still runs).
    public private(set) var pushToTalkCaptures = 0

    /// Nobody holds the microphone yet: voice wake listens.
    public init() {}

    /// Who has the microphone now.
    public var holder: Holder {
        pushToTalkCaptures > 0 ? .pushToTalk : talkOn ? .talk : .wake
    }

    /// Whether voice wake may listen.
    public var wakeListens: Bool { holder == .wake }

    /// Whether Talk mode is on but paused for push-to-talk.
    public var talkPaused: Bool { talkOn && pushToTalkCaptures > 0 }

    /// Applies `event` and returns the actions for the lower holders. Push-to-talk's claim pauses
    /// Talk before suspending wake; its release resumes wake before Talk (the order in which the
    /// holders had the microphone).
    public mutating func handle(_ event: Event) -> [Action] {
        let wasListening = wakeListens
        let wasPaused = talkPaused
        switch event {
        case .talkEntered: talkOn = true
        case .talkExited: talkOn = false
        case .pushToTalkBegan: pushToTalkCaptures += 1
        case .pushToTalkEnded: pushToTalkCaptures = max(0, pushToTalkCaptures - 1)
        }
        var out: [Action] = []
        if !wasPaused, talkPaused { out.append(.pauseTalk) }
        if wasListening, !wakeListens { out.append(.suspendWake) }
        if !wasListening, wakeListens { out.append(.resumeWake) }
        // Talk mode turned off while paused has nothing to resume.
        if wasPaused, !talkPaused, talkOn { out.append(.resumeTalk) }
        return out
    }
}
