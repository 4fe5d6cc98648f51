public import ClawTalkProtocol

/// The decisions of realtime Talk over the gateway relay (talk.md §9.2), pure: session lifecycle
/// (create, ready, failures, reconnect after 0.5 s then 2 s, fallback to native Talk), the reply's
/// playback queue (bounded, marks acknowledged once the audio before them played), barge-in
/// (stop at once, `cancelOutput` with the playing turn) and bad input (logged once per kind).
/// ``RealtimeTalkSession`` performs the actions; times are seconds on any monotonic clock.
public struct RealtimeTalkMachine: Sendable {
    /// Where the session is.
    public enum Phase: String, Sendable, Hashable {
        /// Not running (before start, after exit).
        case off
        /// `talk.session.create` sent.
        case creating
        /// Created, waiting for `ready`.
        case awaitingReady
        /// Ready: audio flows both ways.
        case live
        /// A relay failure: a new session after the retry delay.
        case retrying
        /// Failed past the reconnects: native Talk runs until Talk is entered again.
        case fallenBack
    }

    /// What happened.
    public enum Event: Sendable, Hashable {
        /// Talk mode entered: create a session.
        case start(now: Double)
        /// The create answered.
        case created(sessionId: String)
        /// The session is ready (first, or again after a replacement).
        case ready(now: Double)
        /// The provider session was replaced: a reply in progress ends.
        case replaced
        /// A relay failure: an `error` or `close` event, a failed create or append, no `ready` in time.
        case failure(String, now: Double)
        /// The retry delay passed.
        case retryDue
        /// A chunk of reply audio (`count` samples).
        case audio(turnId: String, count: Int)
        /// The chunk queued as `sequence` has played (or was dropped by a stop).
        case played(sequence: Int)
        /// All of `turnId`'s audio was sent.
        case audioDone(turnId: String)
        /// Drop the queue and stop output.
        case clear
        /// A mark of `turnId`.
        case mark(name: String, turnId: String?)
        /// The onset detector heard the user start speaking over the output.
        case onset
        /// Output was paused at an onset (true) or plays on (false): while paused, and after it
        /// until the queue is back within ``queueLimit``, the queue may hold
        /// ``pauseAllowance`` more chunks, so a pause that was no barge-in loses no audio.
        case paused(Bool)
        /// Bad input from the relay.
        case badInput(RealtimeRelayError)
        /// Talk mode ended (or the node stops): close the session.
        case exit
    }

    /// What to do, in order.
    public enum Action: Sendable, Hashable {
        /// Send `talk.session.create`.
        case create
        /// Start (or keep) sending microphone audio.
        case startMicrophone
        /// Queue the chunk just received for playback as `sequence`.
        case play(sequence: Int)
        /// Drop the oldest queued chunk (`sequence`); `log` once per turn.
        case dropOldest(sequence: Int, log: Bool)
        /// Stop local output at once and drop everything queued.
        case stopOutput
        /// Send `talk.session.cancelOutput` for `turnId`.
        case cancelOutput(turnId: String)
        /// Send `talk.session.acknowledgeMark` for `name`.
        case acknowledgeMark(String)
        /// Close the current session (`talk.session.close`), if one was created.
        case closeSession
        /// Create again after `seconds`.
        case scheduleRetry(seconds: Double)
        /// Give up: native Talk, with this one notice.
        case fallBack(notice: String)
        /// Log bad input of this kind (its first occurrence only).
        case logBadInput(RealtimeRelayError)
    }

    /// Retry delays after the first and second failure (talk.md §9.2 item 5).
    public static let retryDelays = [0.5, 2.0]
    /// A session up this long resets the failure count.
    public static let stableAfter = 30.0
    /// Chunks queued ahead at most (32 × 20 ms).
    public static let queueLimit = 32
    /// More chunks a paused reply may queue (50 × 20 ms: longer than the longest pause,
    /// ``RealtimeBargeIn/Settings/confirmWindow``). The provider keeps sending at real time while
    /// output waits: with the plain limit, 0.58 s into a 0.8 s pause the queue overflowed and the
    /// reply lost audio (bench, 2026-12-06).
    public static let pauseAllowance = 50
    /// The fallback notice.
    public static let fallbackNotice = "realtime relay unavailable, using local speech"

    /// The phase.
    public private(set) var phase = Phase.off
    /// Failures since the last stable session.
    public private(set) var failures = 0
    /// The reply being played (nil: none).
    public private(set) var playingTurn: String?
    /// Chunks queued and not yet played, oldest first.
    public private(set) var queued: [Int] = []
    /// Turns cancelled by barge-in or ended by a replacement or `clear`: their late audio is dropped.
    public private(set) var endedTurns: Set<String> = []
    /// Every turn seen (for marks and `audioDone`).
    public private(set) var knownTurns: Set<String> = []
    /// Kinds of bad input already logged.
    public private(set) var loggedKinds: Set<String> = []
    private var lastReady: Double?
    private var nextSequence = 0
    private var lastQueued: Int?
    private var pendingMarks: [(name: String, after: Int)] = []
    private var droppedLoggedFor: Set<String> = []
    private var doneTurns: Set<String> = []
    /// Output is paused at an onset.
    public private(set) var isPaused = false
    /// Chunks over ``queueLimit`` still allowed after a pause ended, until the queue is back
    /// within the limit (the reply plays on that much later, and nothing of it is lost).
    private var carried = 0

    /// The queue's bound now: ``queueLimit``, raised by ``pauseAllowance`` while paused and by
    /// what is left of it after the pause.
    public var queueBound: Int { Self.queueLimit + (isPaused ? Self.pauseAllowance : carried) }

    /// A machine in ``Phase/off``.
    public init() {}

    /// Whether a reply is playing: from its first chunk until its `audioDone` has come and its
    /// queue has drained (a queue that runs dry between two chunks keeps the reply playing), or
    /// until it is stopped.
    public var isOutputActive: Bool { playingTurn != nil }

    /// Applies `event`; returns the actions to perform in order.
    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .start(let now):
            guard phase == .off || phase == .fallenBack else { return [] }
            failures = 0
            lastReady = now
            phase = .creating
            return [.create]
        case .created:
            guard phase == .creating else { return [] }
            phase = .awaitingReady
            return []
        case .ready(let now):
            guard phase == .awaitingReady || phase == .live else { return [] }
            let wasLive = phase == .live
            phase = .live
            lastReady = now
            return wasLive ? endReply() : [.startMicrophone]
        case .replaced:
            guard phase == .live else { return [] }
            return endReply()
        case .failure(_, let now):
            return failure(now: now)
        case .retryDue:
            guard phase == .retrying else { return [] }
            phase = .creating
            return [.create]
        case .audio(let turnId, _):
            return audio(turnId)
        case .played(let sequence):
            return played(sequence)
        case .audioDone(let turnId):
            guard knownTurns.contains(turnId) else { return badInput(.unknownTurn(turnId)) }
            doneTurns.insert(turnId)
            if playingTurn == turnId, queued.isEmpty { playingTurn = nil }
            return []
        case .clear:
            return endReply()
        case .mark(let name, let turnId):
            return mark(name, turnId: turnId)
        case .onset:
            guard phase == .live, let turn = playingTurn else { return [] }
            endedTurns.insert(turn)
            var actions = clearQueue()
            actions.append(.cancelOutput(turnId: turn))
            return actions
        case .paused(let paused):
            if paused, playingTurn == nil { return [] }
            // After the pause the whole allowance stays until the queue is back within the limit
            // (its length wavers by a few chunks as the speaker reports them played).
            if isPaused, !paused { carried = queued.count > Self.queueLimit ? Self.pauseAllowance : 0 }
            isPaused = paused
            return []
        case .badInput(let error):
            return badInput(error)
        case .exit:
            guard phase != .off else { return [] }
            let hadSession = phase != .fallenBack && phase != .retrying
            var actions = clearQueue()
            phase = .off
            if hadSession { actions.append(.closeSession) }
            return actions
        }
    }

    // MARK: - Lifecycle

    private mutating func failure(now: Double) -> [Action] {
        guard phase == .creating || phase == .awaitingReady || phase == .live else { return [] }
        var actions = clearQueue()
        actions.append(.closeSession)
        if let lastReady, phase == .live, now - lastReady >= Self.stableAfter { failures = 0 }
        failures += 1
        if failures <= Self.retryDelays.count {
            phase = .retrying
            actions.append(.scheduleRetry(seconds: Self.retryDelays[failures - 1]))
        } else {
            phase = .fallenBack
            actions.append(.fallBack(notice: Self.fallbackNotice))
        }
        return actions
    }

    /// A reply in progress ends (replacement, `clear`): output stops, its later audio is dropped.
    private mutating func endReply() -> [Action] {
        if let turn = playingTurn { endedTurns.insert(turn) }
        return clearQueue()
    }

    private mutating func clearQueue() -> [Action] {
        let active = !queued.isEmpty || playingTurn != nil
        queued = []
        pendingMarks = []
        playingTurn = nil
        isPaused = false
        carried = 0
        return active ? [.stopOutput] : []
    }

    // MARK: - Output

    private mutating func audio(_ turnId: String) -> [Action] {
        guard phase == .live, !endedTurns.contains(turnId) else { return [] }
        knownTurns.insert(turnId)
        var actions: [Action] = []
        if let playing = playingTurn, playing != turnId {
            // A new reply replaces what is left of the old one.
            endedTurns.insert(playing)
            actions += clearQueue()
        }
        playingTurn = turnId
        let sequence = nextSequence
        nextSequence += 1
        queued.append(sequence)
        lastQueued = sequence
        actions.append(.play(sequence: sequence))
        if queued.count > queueBound {
            let oldest = queued.removeFirst()
            let log = droppedLoggedFor.insert(turnId).inserted
            actions.append(.dropOldest(sequence: oldest, log: log))
            actions += acknowledgeDue()
        }
        return actions
    }

    private mutating func played(_ sequence: Int) -> [Action] {
        guard let index = queued.firstIndex(of: sequence) else { return [] }
        queued.remove(at: index)
        if queued.count <= Self.queueLimit { carried = 0 }
        let actions = acknowledgeDue()
        if queued.isEmpty, let turn = playingTurn, doneTurns.contains(turn) { playingTurn = nil }
        return actions
    }

    /// Marks whose audio has all played (nothing at or before their last chunk is queued).
    private mutating func acknowledgeDue() -> [Action] {
        let oldest = queued.first ?? Int.max
        var due: [Action] = []
        pendingMarks.removeAll { mark in
            guard mark.after < oldest else { return false }
            due.append(.acknowledgeMark(mark.name))
            return true
        }
        return due
    }

    private mutating func mark(_ name: String, turnId: String?) -> [Action] {
        guard phase == .live else { return [] }
        if let turnId {
            guard knownTurns.contains(turnId) else { return badInput(.unknownMark(name: name, turnId: turnId)) }
            // A mark of a cancelled reply: its audio never plays, nothing to acknowledge.
            if endedTurns.contains(turnId) { return [] }
        }
        guard let last = lastQueued, !queued.isEmpty else { return [.acknowledgeMark(name)] }
        pendingMarks.append((name, last))
        return []
    }

    private mutating func badInput(_ error: RealtimeRelayError) -> [Action] {
        loggedKinds.insert(error.kind).inserted ? [.logBadInput(error)] : []
    }
}
