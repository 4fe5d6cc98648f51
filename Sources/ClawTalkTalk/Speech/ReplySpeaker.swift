import ClawTalkProtocol
public import ClawTalkSupport

/// Speaks what ``ReplyTracker`` reports: the segments of a turn go, as they arrive, into one
/// ``SpeechOutput`` session (incremental speech, talk.md §7.6); a failed or superseded turn stops its
/// speech; a rewrite withdraws what the discarded draft had queued (``SpeechWithdrawals``); a turn
/// whose speech was stopped (barge-in, push-to-talk) is no longer tracked. The
/// text of each finished reply is saved for `clawtalk say --last`.
public actor ReplySpeaker {
    /// What happened to a turn's speech, for Talk mode and status.
    public enum Event: Sendable, Equatable {
        /// The first segment of `turn` went to speech output.
        case speaking(turn: Int)
        /// The speech of `turn` ended.
        case spoke(turn: Int, SpeechResult)
        /// `turn` ended without a reply to speak.
        case failed(turn: Int, ReplyFailure)
    }

    let tracker: ReplyTracker
    let speech: SpeechOutput
    let lastReply: LastReplyStore?
    let now: @Sendable () -> Int64
    let logger: Logger

    private var active:
        (
            turn: Int, input: AsyncStream<SpeechSegment>.Continuation, withdrawals: SpeechWithdrawals,
            task: Task<Void, Never>
        )?
    /// ``events()``: the newest 64 unread events per reader.
    private let broadcast = EventBroadcast<Event>(bufferingNewest: 64)

    /// A speaker of `tracker`'s replies through `speech`, saving them to `lastReply`.
    public init(
        tracker: ReplyTracker, speech: SpeechOutput, lastReply: LastReplyStore?,
        now: @escaping @Sendable () -> Int64, logger: Logger = .discarding
    ) {
        self.tracker = tracker
        self.speech = speech
        self.lastReply = lastReply
        self.now = now
        self.logger = logger.child(category: "talk.reply")
    }

    /// Speaks replies until the calling task is cancelled.
    public func run() async {
        let updates = await tracker.updates()
        for await update in updates {
            handle(update)
        }
        active?.input.finish()
        active?.task.cancel()
    }

    /// Speech events from now on.
    public func events() -> AsyncStream<Event> {
        broadcast.subscribe()
    }

    private func handle(_ update: ReplyUpdate) {
        switch update {
        case .segment(let turn, let index, let text, let directive):
            if active?.turn != turn { start(turn, directive: directive) }
            active?.input.yield(SpeechSegment(text: text, id: index))
        case .withdrawn(let turn, let segments):
            if let current = active, current.turn == turn {
                current.withdrawals.withdraw(segments)
                logger.debug(
                    "reply.withdrawn",
                    ["turn": .int(turn), "segments": .string(segments.map(String.init).joined(separator: ","))])
            }
        case .finished(let turn, let text, _):
            if active?.turn == turn { active?.input.finish() }
            save(text)
        case .failed(let turn, let reason):
            if let current = active, current.turn == turn {
                current.input.finish()
                current.task.cancel()
                active = nil
            }
            publish(.failed(turn: turn, reason))
        }
    }

    /// Opens the speech session of `turn` (stopping an older turn's speech).
    private func start(_ turn: Int, directive: TalkDirective?) {
        if let previous = active {
            previous.input.finish()
            previous.task.cancel()
        }
        let (segments, input) = AsyncStream.makeStream(of: SpeechSegment.self)
        let withdrawals = SpeechWithdrawals()
        let speech = speech
        let task = Task {
            let result = await speech.speak(
                segments: segments, withdrawals: withdrawals, directive: directive, purpose: .reply)
            await self.spoke(turn, result)
        }
        active = (turn, input, withdrawals, task)
        publish(.speaking(turn: turn))
    }

    private func spoke(_ turn: Int, _ result: SpeechResult) async {
        if active?.turn == turn { active = nil }
        if result.outcome == .interrupted {
            // Stopped speech ends the turn: later segments must not start speaking again.
            await tracker.cancel(turn: turn)
        }
        publish(.spoke(turn: turn, result))
    }

    private func save(_ text: String) {
        guard let lastReply, !text.isEmpty else { return }
        do {
            try lastReply.save(LastReplyStore.Reply(text: text, savedAtMs: now()))
        } catch {
            logger.warning("reply.last.save_failed", ["error": .string("\(error)")])
        }
    }

    private func publish(_ event: Event) {
        broadcast.publish(event)
    }
}
