public import ClawTalkSupport

/// Voice wake as the microphone's owner sees it: it stops listening and listens again.
public protocol WakeListening: Sendable {
    /// Stops listening (a wake command being captured is discarded).
    func suspend() async
    /// Listens again.
    func resume() async
}

/// Talk mode as push-to-talk pauses it.
public protocol TalkPausing: Sendable {
    /// Lets go of the microphone (closes Talk's capture and a pending barge-in check); returns
    /// once that is done. Nothing happens when Talk mode is off.
    func pauseForPushToTalk() async
    /// Takes the microphone back where Talk left off (nothing when it was not paused).
    func resumeAfterPushToTalk() async
}

/// Who listens, carried out (talk.md §1): Talk mode and push-to-talk claim and release the
/// microphone here, ``MicrophoneArbiter`` decides, and this actor carries the decisions out on
/// voice wake and Talk mode, one at a time in order (``AsyncLane``). The node's `Microphone`
/// (ClawTalkNode, the one owner of the microphone: its engine, subscriptions and health) holds
/// the one instance; it lives here, beside the rule, because Talk mode and push-to-talk claim
/// through it.
///
/// Push-to-talk's claim and release return once carried out: its capture opens only after Talk
/// and wake have let go. Talk mode's do not wait: pausing Talk waits for Talk's own effects,
/// and its claim is one of them.
public actor MicrophoneClaims {
    private var arbiter: MicrophoneArbiter
    private var wake: (any WakeListening)?
    private var talk: (any TalkPausing)?
    private let lane = AsyncLane()
    private let logger: Logger

    /// An owner that tells `wake` and `talk` (or nobody yet: ``attach(wake:talk:)``), starting
    /// from `arbiter`'s state (default: nobody holds the microphone).
    public init(
        arbiter: MicrophoneArbiter = MicrophoneArbiter(), wake: (any WakeListening)? = nil,
        talk: (any TalkPausing)? = nil, logger: Logger = .discarding
    ) {
        self.arbiter = arbiter
        self.wake = wake
        self.talk = talk
        self.logger = logger.child(category: "microphone")
    }

    /// Who has the microphone now.
    public var holder: MicrophoneArbiter.Holder { arbiter.holder }

    /// Sets voice wake and Talk mode (built after the owner, since they claim through it). A
    /// holder attached while the microphone is not its own is brought in line at once.
    public func attach(wake: (any WakeListening)?, talk: (any TalkPausing)?) {
        self.wake = wake
        self.talk = talk
        var catchUp: [MicrophoneArbiter.Action] = []
        if !arbiter.wakeListens { catchUp.append(.suspendWake) }
        if arbiter.talkPaused { catchUp.append(.pauseTalk) }
        carryOut(catchUp)
    }

    /// Talk mode was turned on.
    public func talkEntered() {
        apply(.talkEntered)
    }

    /// Talk mode was turned off.
    public func talkExited() {
        apply(.talkExited)
    }

    /// A push-to-talk capture takes the microphone; returns once Talk mode and voice wake have
    /// let go of it.
    public func pushToTalkBegan() async {
        apply(.pushToTalkBegan)
        await lane.drained()
    }

    /// The push-to-talk capture ended; returns once the microphone was given back.
    public func pushToTalkEnded() async {
        apply(.pushToTalkEnded)
        await lane.drained()
    }

    /// Returns once the decisions made so far have been carried out.
    public func settle() async {
        await lane.drained()
    }

    private func apply(_ event: MicrophoneArbiter.Event) {
        let before = arbiter.holder
        let actions = arbiter.handle(event)
        if arbiter.holder != before {
            logger.debug("mic.holder", ["from": .string(before.rawValue), "to": .string(arbiter.holder.rawValue)])
        }
        carryOut(actions)
    }

    private func carryOut(_ actions: [MicrophoneArbiter.Action]) {
        guard !actions.isEmpty else { return }
        let wake = wake
        let talk = talk
        lane.enqueue {
            for action in actions {
                switch action {
                case .suspendWake: await wake?.suspend()
                case .resumeWake: await wake?.resume()
                case .pauseTalk: await talk?.pauseForPushToTalk()
                case .resumeTalk: await talk?.resumeAfterPushToTalk()
                }
            }
        }
    }
}
