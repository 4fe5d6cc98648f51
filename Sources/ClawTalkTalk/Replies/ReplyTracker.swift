public import ClawTalkGateway
import ClawTalkProtocol
public import ClawTalkSupport

/// Follows the reply to the latest user turn (talk.md §4) and reports it as speakable
/// ``ReplyUpdate``s.
///
/// - **Full mode:** ``begin(sessionKey:prompt:sentAtMs:adoptFirstRun:incremental:)`` before
///   `chat.send`, ``bind(turn:runId:status:)`` with its result: `chat` and `agent` events of
///   that run are followed. If no event arrived ``Timing/historyAfter`` (45 s) after the send,
///   `chat.history` is polled every 300 ms for up to 12 s for the newest assistant message
///   created after the send; a terminal `ok` from `chat.send` reads history at once.
/// - **Node-only (`voice.transcript`):** `begin(…, adoptFirstRun: true)` arms the tracker before
///   sending; the first `chat` run seen on that session is adopted (events through the node's
///   subscription are accepted whatever the session key's spelling).
/// - What is spoken (talk.md §4.3) is decided by the turn's ``StreamedReply``: streamed text is
///   cumulative; a text that restarts (`replace:true`, or not starting with the text held) is a
///   rewrite whose unspoken rest is dropped, and each sentence is spoken once.
/// - Every turn ends with `finished` (at `final`), or `failed` on `aborted`/`error`, after
///   ``Timing/deadline`` (120 s), when superseded by a newer turn, or when cancelled.
///
/// The decisions are ``ReplyTrackingMachine``'s; the tracker runs its timers and history reads,
/// publishes its updates and logs its notes. Attach the connections with ``attach(node:)`` and
/// ``attach(operator:)``; events can also be fed with ``receive(_:viaNode:)``.
public actor ReplyTracker {
    /// Limits of reply tracking (talk.md §4.1, §8).
    public struct Timing: Sendable, Equatable {
        /// Give up this long after the send. Default 120 s.
        public var deadline: Duration
        /// Poll history when no event arrived this long after the send. Default 45 s.
        public var historyAfter: Duration
        /// History poll interval. Default 300 ms.
        public var historyInterval: Duration
        /// How long history is polled. Default 12 s.
        public var historyWindow: Duration
        /// `limit` of each `chat.history` request. Default 20.
        public var historyLimit: Int

        /// The contract's values unless given.
        public init(
            deadline: Duration = .seconds(120), historyAfter: Duration = .seconds(45),
            historyInterval: Duration = .milliseconds(300), historyWindow: Duration = .seconds(12),
            historyLimit: Int = 20
        ) {
            self.deadline = deadline
            self.historyAfter = historyAfter
            self.historyInterval = historyInterval
            self.historyWindow = historyWindow
            self.historyLimit = historyLimit
        }
    }

    let timing: Timing
    let clock: any Clock<Duration>
    let logger: Logger

    var machine: ReplyTrackingMachine
    var operatorSession: OperatorSession?
    var nodeListener: Task<Void, Never>?
    var operatorListener: Task<Void, Never>?
    /// The current turn's deadline, history fallback and history reads.
    var timers: [Task<Void, Never>] = []
    /// ``updates()``: the newest 512 unread updates per reader.
    let broadcast = EventBroadcast<ReplyUpdate>(bufferingNewest: 512)

    /// A tracker; `softLimit` is the segment length after which speech cuts at whitespace.
    public init(
        timing: Timing = Timing(), clock: any Clock<Duration> = ContinuousClock(), logger: Logger = .discarding,
        softLimit: Int = 72
    ) {
        self.timing = timing
        self.clock = clock
        self.logger = logger.child(category: "talk.reply")
        machine = ReplyTrackingMachine(softLimit: softLimit)
    }

    // MARK: - Connections

    /// Follows `chat` events of the node's subscriptions (nil detaches).
    public func attach(node session: NodeSession?) async {
        nodeListener?.cancel()
        nodeListener = nil
        guard let session else { return }
        let stream = await session.subscribe(events: [GatewayEventName.chat.rawValue])
        nodeListener = Task { [weak self] in
            for await event in stream {
                if case .event(_, let frame) = event { await self?.receive(frame, viaNode: true) }
            }
        }
    }

    /// Follows `chat` and `agent` events of the operator connection and reads `chat.history`
    /// through it (nil detaches).
    public func attach(operator session: OperatorSession?) async {
        operatorListener?.cancel()
        operatorListener = nil
        operatorSession = session
        guard let session else { return }
        let names: Set<String> = [GatewayEventName.chat.rawValue, GatewayEventName.agent.rawValue]
        let stream = await session.subscribe(events: names)
        operatorListener = Task { [weak self] in
            for await event in stream {
                if case .event(_, let frame) = event { await self?.receive(frame, viaNode: false) }
            }
        }
    }

    /// Reply updates of every turn from now on (newest 512 kept for a slow reader).
    public func updates() -> AsyncStream<ReplyUpdate> {
        broadcast.subscribe()
    }

    /// Live ``updates()`` streams.
    var subscriberCount: Int { broadcast.subscriberCount }

    /// The turn being followed, if any.
    public var currentTurn: Int? { machine.turn?.id }

    // MARK: - Turns

    /// Starts following a new user turn (a turn still running is superseded); returns its id.
    /// - Parameters:
    ///   - sessionKey: the session the transcript goes to.
    ///   - prompt: the message sent (to find it in history without timestamps).
    ///   - sentAtMs: wall-clock send time (history messages must be newer).
    ///   - adoptFirstRun: node-only: adopt the first run seen on the session (talk.md §4.2).
    ///   - incremental: report segments while the reply streams (else only at `final`).
    @discardableResult
    public func begin(sessionKey: String, prompt: String, sentAtMs: Int64, adoptFirstRun: Bool, incremental: Bool)
        -> Int
    {
        let (id, actions) = machine.begin(
            sessionKey: sessionKey, prompt: prompt, sentAtMs: sentAtMs, adoptFirstRun: adoptFirstRun,
            incremental: incremental)
        perform(actions)
        return id
    }

    /// Binds a full-mode turn to the `runId` of its `chat.send` result; a terminal `status`
    /// (`ok`) reads the reply from history at once.
    public func bind(turn id: Int, runId: String?, status: String?) {
        perform(machine.bind(turn: id, runId: runId, status: status))
    }

    /// Switches an unbound turn to adoption (its `chat.send` timed out, so the run id is
    /// unknown but the turn may be running).
    public func adoptFirstRun(turn id: Int) {
        perform(machine.adoptFirstRun(turn: id))
    }

    /// Stops following `turn` (nil: the current turn); it reports `failed(.cancelled)`.
    public func cancel(turn id: Int? = nil) {
        perform(machine.cancel(turn: id))
    }

    // MARK: - Actions

    /// Does what the machine asked, in order.
    func perform(_ actions: [ReplyTrackingMachine.Action]) {
        for action in actions {
            switch action {
            case .publish(let update):
                broadcast.publish(update)
            case .startTimers(let id):
                startTimers(id)
            case .stopTimers:
                for timer in timers { timer.cancel() }
                timers = []
            case .pollHistory(let id, let force):
                timers.append(Task { [weak self] in await self?.pollHistory(id, force: force) })
            case .log(let note):
                log(note)
            }
        }
    }

    /// The deadline (``Timing/deadline``) and the history fallback (``Timing/historyAfter``).
    private func startTimers(_ id: Int) {
        let clock = clock
        let timing = timing
        // Unstructured on purpose: each timer's handle is kept in `timers` and cancelled when
        // the turn settles.
        timers.append(
            Task { [weak self] in
                guard (try? await clock.sleep(for: timing.deadline)) != nil else { return }
                await self?.expire(id)
            })
        timers.append(
            Task { [weak self] in
                guard (try? await clock.sleep(for: timing.historyAfter)) != nil else { return }
                await self?.pollHistory(id, force: false)
            })
    }

    private func expire(_ id: Int) {
        perform(machine.expire(turn: id))
    }

    private func log(_ note: ReplyTrackingMachine.Note) {
        switch note {
        case .began(let id, let sessionKey, let adopt):
            logger.debug(
                "reply.turn.begin", ["turn": .int(id), "sessionKey": .string(sessionKey), "adopt": .bool(adopt)])
        case .bound(let id, let runId):
            logger.debug("reply.turn.bound", ["turn": .int(id), "runId": .string(runId)])
        case .adopted(let id, let runId, let sessionKey):
            logger.info(
                "reply.run.adopted", ["turn": .int(id), "runId": .string(runId), "sessionKey": .string(sessionKey)])
        case .rewritten(let id, let source, let fromLead, let replace):
            logger.debug(
                "reply.rewritten",
                [
                    "turn": .int(id), "source": .string(source.rawValue), "lead": .bool(fromLead),
                    "replace": .bool(replace),
                ])
        case .finished(let id, let runId, let text, let spokenText):
            logger.info(
                "reply.finished",
                [
                    "turn": .int(id), "runId": .string(runId ?? "-"), "text": .string(text),
                    "spokenText": .string(spokenText),
                ])
        case .failed(let id, let runId, let reason):
            logger.info(
                "reply.failed", ["turn": .int(id), "runId": .string(runId ?? "-"), "reason": .string("\(reason)")])
        case .unknownChatState(let state):
            logger.debug("reply.chat.state.unknown", ["state": .string(state)])
        }
    }
}
