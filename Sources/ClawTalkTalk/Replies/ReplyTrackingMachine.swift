import ClawTalkProtocol

/// The decisions of reply tracking (talk.md §4), with no clock, connection or stream:
/// which events belong to the followed turn (its bound run, the first run it adopts, or the
/// backlog kept until the run is known), what of its reply becomes speakable, and how each turn
/// ends. Every step returns ``Action``s; ``ReplyTracker`` runs the timers and `chat.history`
/// reads they ask for, publishes the updates and logs the notes.
struct ReplyTrackingMachine: Sendable {
    /// What a step asks the tracker to do, in order.
    enum Action: Sendable, Equatable {
        /// Hand `update` to every subscriber.
        case publish(ReplyUpdate)
        /// Start turn `turn`'s deadline and its history fallback.
        case startTimers(turn: Int)
        /// Stop the timers of turn `turn` (it ended).
        case stopTimers(turn: Int)
        /// Read the reply from `chat.history` now (`force`: even if events arrived).
        case pollHistory(turn: Int, force: Bool)
        /// Log `note`.
        case log(Note)
    }

    /// A fact worth a log line.
    enum Note: Sendable, Equatable {
        case began(turn: Int, sessionKey: String, adopt: Bool)
        case bound(turn: Int, runId: String)
        case adopted(turn: Int, runId: String, sessionKey: String)
        case rewritten(turn: Int, source: StreamedReply.Source, fromLead: Bool, replace: Bool)
        case finished(turn: Int, runId: String?, text: String, spokenText: String)
        case failed(turn: Int, runId: String?, reason: ReplyFailure)
        case unknownChatState(String)
    }

    /// What a `chat.history` read looks for.
    struct HistoryQuery: Sendable, Equatable {
        var sessionKey: String
        var prompt: String
        var sentAtMs: Int64
    }

    /// Most events kept while a run id is unknown.
    static let backlogLimit = 256

    /// Terminal `chat.send` statuses: the reply is in history already.
    static let terminalStatuses: Set<String> = ["ok", "done", "completed", "final"]

    /// The segment length after which speech cuts at whitespace.
    let softLimit: Int
    /// The turn being followed, if any.
    private(set) var turn: ReplyTurn?
    private var nextTurnId = 0
    private(set) var backlog: [BacklogEvent] = []

    init(softLimit: Int) {
        self.softLimit = softLimit
    }

    // MARK: - Turns

    /// Starts following a new user turn (a turn still running is superseded); returns its id.
    mutating func begin(
        sessionKey: String, prompt: String, sentAtMs: Int64, adoptFirstRun: Bool, incremental: Bool
    ) -> (turn: Int, actions: [Action]) {
        var out: [Action] = []
        if let previous = turn { fail(previous.id, .superseded, &out) }
        backlog = []
        nextTurnId += 1
        let id = nextTurnId
        turn = ReplyTurn(
            id: id, sessionKey: sessionKey, prompt: prompt, sentAtMs: sentAtMs, adopting: adoptFirstRun,
            reply: StreamedReply(incremental: incremental, softLimit: softLimit))
        out.append(.startTimers(turn: id))
        out.append(.log(.began(turn: id, sessionKey: sessionKey, adopt: adoptFirstRun)))
        return (id, out)
    }

    /// Binds a full-mode turn to the `runId` of its `chat.send` result; a terminal `status`
    /// reads the reply from history at once.
    mutating func bind(turn id: Int, runId: String?, status: String?) -> [Action] {
        guard var current = turn, current.id == id else { return [] }
        var out: [Action] = []
        if let runId {
            current.runId = runId
            current.adopting = false
            turn = current
            out.append(.log(.bound(turn: id, runId: runId)))
            replayBacklog(&out)
        }
        if let status, Self.terminalStatuses.contains(status.lowercased()), turn?.id == id {
            out.append(.pollHistory(turn: id, force: true))
        }
        return out
    }

    /// Switches an unbound turn to adoption (its `chat.send` timed out: the run id is unknown but
    /// the turn may be running); the kept events are looked at again.
    mutating func adoptFirstRun(turn id: Int) -> [Action] {
        guard var current = turn, current.id == id, current.runId == nil else { return [] }
        current.adopting = true
        turn = current
        let kept = backlog
        backlog = []
        var out: [Action] = []
        for event in kept { receive(event, &out) }
        return out
    }

    /// Stops following `turn` (nil: the current turn); it fails as cancelled.
    mutating func cancel(turn id: Int?) -> [Action] {
        guard let current = turn, id == nil || current.id == id else { return [] }
        var out: [Action] = []
        fail(current.id, .cancelled, &out)
        return out
    }

    /// Turn `id`'s deadline passed.
    mutating func expire(turn id: Int) -> [Action] {
        var out: [Action] = []
        fail(id, .timedOut, &out)
        return out
    }

    /// `chat.history` held turn `id`'s reply.
    mutating func historyFound(turn id: Int, text: String) -> [Action] {
        var out: [Action] = []
        finish(id, finalText: text, &out)
        return out
    }

    /// What a history read for turn `id` looks for, or nil when it should stop: the turn ended,
    /// or (unless `force`) an event of its run arrived.
    func historyQuery(turn id: Int, force: Bool) -> HistoryQuery? {
        guard let current = turn, current.id == id, force || !current.sawEvent else { return nil }
        return HistoryQuery(sessionKey: current.sessionKey, prompt: current.prompt, sentAtMs: current.sentAtMs)
    }

    // MARK: - Events

    /// Matches an event to the current turn: bound run id, adoption, or the backlog.
    mutating func receive(_ event: BacklogEvent) -> [Action] {
        var out: [Action] = []
        receive(event, &out)
        return out
    }

    private mutating func receive(_ event: BacklogEvent, _ out: inout [Action]) {
        guard var current = turn else { return }
        if current.runId == nil {
            guard current.adopting, case .chat(let chat, let viaNode) = event,
                viaNode || SessionKeys.match(chat.sessionKey, current.sessionKey)
            else {
                keep(event)
                return
            }
            current.runId = chat.runId
            turn = current
            out.append(.log(.adopted(turn: current.id, runId: chat.runId, sessionKey: chat.sessionKey)))
            handle(event, &out)
            replayBacklog(&out)
            return
        }
        guard event.runId == current.runId else { return }
        handle(event, &out)
    }

    /// Replays kept events of the now known run, in arrival order.
    private mutating func replayBacklog(_ out: inout [Action]) {
        guard let runId = turn?.runId else { return }
        let kept = backlog
        backlog = []
        for event in kept where event.runId == runId { handle(event, &out) }
    }

    private mutating func keep(_ event: BacklogEvent) {
        backlog.append(event)
        if backlog.count > Self.backlogLimit { backlog.removeFirst(backlog.count - Self.backlogLimit) }
    }

    /// An event of the followed run (each one once: both connections may deliver it).
    private mutating func handle(_ event: BacklogEvent, _ out: inout [Action]) {
        guard var current = turn else { return }
        switch event {
        case .chat(let chat, _):
            let key = chat.seq.map { "chat:\(chat.state):\($0)" } ?? "chat:\(chat.state):\(chat.text)"
            guard current.seen.insert(key).inserted else { return }
            current.sawEvent = true
            turn = current
            switch chat.chatState {
            case .delta?: advance(chat.streamedText, from: .chat, &out)
            case .final?: finish(current.id, finalText: chat.text, &out)
            case .aborted?: fail(current.id, .aborted, &out)
            case .error?: fail(current.id, .error(chat.errorMessage), &out)
            case nil: out.append(.log(.unknownChatState(chat.state)))
            }
        case .agent(let agent):
            let key =
                agent.seq.map { "agent:\(agent.stream):\($0)" } ?? "agent:\(agent.stream):\(agent.data.text ?? "")"
            guard current.seen.insert(key).inserted else { return }
            current.sawEvent = true
            turn = current
            if let piece = agent.streamedText { advance(piece, from: .agent, &out) }
            if agent.isLifecycleEnd, let held = turn?.reply.heldText, !held.isEmpty {
                finish(current.id, finalText: nil, &out)
            }
        }
    }

    /// Feeds one streamed piece to the turn's reply and reports the segments it made speakable.
    private mutating func advance(_ piece: StreamedText, from source: StreamedReply.Source, _ out: inout [Action]) {
        guard var current = turn else { return }
        let step = current.reply.receive(piece, from: source)
        if step.change == .rewritten {
            out.append(
                .log(.rewritten(turn: current.id, source: source, fromLead: step.fromLead, replace: piece.replace)))
        }
        report(step.segments, of: &current, &out)
        turn = current
    }

    /// Reports what a rewrite of `current`'s reply withdrew, then `segments` (numbered from the
    /// turn's first segment).
    private func report(_ segments: [String], of current: inout ReplyTurn, _ out: inout [Action]) {
        let withdrawn = current.reply.takeWithdrawals()
        if !withdrawn.isEmpty { out.append(.publish(.withdrawn(turn: current.id, segments: withdrawn))) }
        for (offset, segment) in segments.enumerated() {
            out.append(
                .publish(
                    .segment(
                        turn: current.id, index: current.reportedSegments + offset, text: segment,
                        directive: current.reply.directive)))
        }
        current.reportedSegments += segments.count
    }

    // MARK: - Ending

    /// Ends turn `id` with its final text (nil or empty: the text held).
    private mutating func finish(_ id: Int, finalText: String?, _ out: inout [Action]) {
        guard var current = turn, current.id == id else { return }
        let rest = current.reply.finish(finalText)
        end(current, &out)
        report(rest, of: &current, &out)
        let reply = current.reply
        out.append(
            .log(.finished(turn: id, runId: current.runId, text: reply.replyText, spokenText: reply.spokenText)))
        out.append(.publish(.finished(turn: id, text: reply.replyText, directive: reply.directive)))
    }

    private mutating func fail(_ id: Int, _ reason: ReplyFailure, _ out: inout [Action]) {
        guard let current = turn, current.id == id else { return }
        end(current, &out)
        out.append(.log(.failed(turn: id, runId: current.runId, reason: reason)))
        out.append(.publish(.failed(turn: id, reason: reason)))
    }

    private mutating func end(_ ended: ReplyTurn, _ out: inout [Action]) {
        out.append(.stopTimers(turn: ended.id))
        turn = nil
        backlog = []
    }
}
