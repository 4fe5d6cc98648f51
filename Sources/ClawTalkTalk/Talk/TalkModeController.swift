import ClawTalkAudio
import ClawTalkGateway
public import ClawTalkProtocol
public import ClawTalkSpeech
public import ClawTalkSupport

/// Talk mode (talk.md §5): owns a ``TalkModeStateMachine`` and performs its actions
/// through the seams — captures from ``UtteranceCapturing``, transcribes with the
/// ``Transcriber``, sends through ``TranscriptDelivering`` (source Talk mode), stops speech
/// through ``SpeechStopping`` and reports `talk.mode` on the operator session.
///
/// - Frames of the open capture feed the machine (end of turn, idle timeout, barge-in onset);
///   a turn is transcribed from ``TalkModeConfiguration/leadIn`` before its first speech (or,
///   after a barge-in, before the interrupting speech), so the echo of the reply that may sit
///   in the pre-roll is not sent.
/// - ``follow(speaker:tracker:)`` turns the reply speaker's events into phase changes and the
///   tracker's segments into the barge-in echo guard.
/// - ``attach(operator:)`` applies the gateway's `talk.mode` events and sends reports.
/// - Side effects run in order on one lane; transcription and delivery run beside it, as
///   children of the controller's task group, and come back as events (stale ones are
///   recognised by a capture generation).
public actor TalkModeController: TalkPausing {
    let capturing: any UtteranceCapturing
    let transcriber: any Transcriber
    let delivery: any TranscriptDelivering
    let speech: any SpeechStopping
    let hooks: TalkModeHooks
    let baseConfiguration: TalkModeConfiguration
    let logger: Logger

    var machine: TalkModeStateMachine
    let lane = AsyncLane()
    let reportLane = AsyncLane()
    /// Transcriptions of turns and deliveries: children of the controller, not loose tasks.
    let children = OwnedTaskGroup()
    var captures: [Int: OpenCapture] = [:]
    var current: Int?
    var generation = 0
    var checkStart: Double?
    /// Where the interrupting speech starts when the machine places it at a later onset.
    var interruptionStart: Double?
    /// Pauses decided and pauses whose hook has run (the playback's silence stamp belongs to the
    /// current pause only when they are equal).
    var pausesDecided = 0
    var pausesRun = 0
    /// Where the next barge-in check's audio ends (nil: with the capture so far).
    var checkEnd: Double?
    var check: Task<Void, Never>?
    var operatorSession: OperatorSession?
    var gatewayListener: Task<Void, Never>?
    /// ``phases()``: the newest 32 unread phases per reader.
    let phaseBroadcast = EventBroadcast<TalkModeStateMachine.Phase>(bufferingNewest: 32)
    /// Realtime Talk holds the microphone (``holdForRealtime()``).
    var heldByRealtime = false
    /// Push-to-talk holds the microphone, and who follows that (realtime Talk).
    var pushToTalkActive = false
    /// ``pushToTalkChanges()``: the newest 8 unread changes per reader.
    let pushToTalkBroadcast = EventBroadcast<Bool>(bufferingNewest: 8)

    /// A capture of a turn (or the barge-in monitor while speaking), by generation.
    struct OpenCapture {
        var capture: (any UtteranceCapture)?
        var monitor: Task<Void, Never>?
        var firstSpeech: Double?
        var runStart: Double?
        var turnStart: Double?
        /// Where the turn's audio ends (nil: with the capture).
        var turnEnd: Double?
        /// Capture time of the newest frame the machine has seen, and of its end.
        var lastFrame = 0.0
        var lastFrameEnd = 0.0
        var levels = LevelStats()
        /// The turn's transcription started at its pause (``TalkModeStateMachine/Action/speculate(_:)``).
        var speculation: Speculation?
    }

    /// A transcription of the turn so far, started at a pause before the turn's end was
    /// certain; its value is nil when it failed or was cancelled.
    struct Speculation {
        var number: Int
        var task: Task<Transcript?, Never>
    }

    /// Frame levels of a capture (for the onset log).
    struct LevelStats {
        var sum = 0.0
        var count = 0
        var runSum = 0.0
        var runCount = 0
        var mean: Double { count == 0 ? 0 : sum / Double(count) }
        var runMean: Double { runCount == 0 ? 0 : runSum / Double(runCount) }

        mutating func add(_ rms: Double, speech: Bool) {
            sum += rms
            count += 1
            if speech {
                runSum += rms
                runCount += 1
            } else {
                runSum = 0
                runCount = 0
            }
        }
    }

    /// A controller over the given seams.
    public init(
        capturing: any UtteranceCapturing, transcriber: any Transcriber, delivery: any TranscriptDelivering,
        speech: any SpeechStopping, hooks: TalkModeHooks = .none,
        configuration: TalkModeConfiguration = TalkModeConfiguration(), logger: Logger = .discarding
    ) {
        self.capturing = capturing
        self.transcriber = transcriber
        self.delivery = delivery
        self.speech = speech
        self.hooks = hooks
        baseConfiguration = configuration
        self.logger = logger.child(category: "talk.runtime")
        machine = TalkModeStateMachine(configuration: configuration)
    }

    /// The current phase.
    public var phase: TalkModeStateMachine.Phase { machine.phase }

    /// The machine (for status and tests).
    public var state: TalkModeStateMachine { machine }

    /// Phase changes from now on (the current phase first).
    public func phases() -> AsyncStream<TalkModeStateMachine.Phase> {
        phaseBroadcast.subscribe(startingWith: machine.phase)
    }

    /// Whether push-to-talk holds the microphone, from now on (the current state first): realtime
    /// Talk stops its reply and its microphone stream while it does (talk.md §9.2).
    public func pushToTalkChanges() -> AsyncStream<Bool> {
        pushToTalkBroadcast.subscribe(startingWith: pushToTalkActive)
    }

    private func setPushToTalk(_ active: Bool) {
        guard pushToTalkActive != active else { return }
        pushToTalkActive = active
        pushToTalkBroadcast.publish(active)
    }

    // MARK: - Commands

    /// Turns Talk mode on (no-op when on). With `firstTranscript` (a wake command when
    /// `wake.startsTalk` is on) that text is the first turn; while listening it is sent as the turn.
    public func enter(source: TalkModeStateMachine.Source = .local, firstTranscript: String? = nil) {
        apply(.enter(source, firstTranscript: firstTranscript))
    }

    /// Turns Talk mode off (no-op when off).
    public func exit(source: TalkModeStateMachine.Source = .local) {
        apply(.exit(source))
    }

    /// On when off, off when on; returns whether Talk is on afterwards.
    @discardableResult
    public func toggle() -> Bool {
        machine.isEnabled ? exit() : enter()
        return machine.isEnabled
    }

    /// Push-to-talk takes the microphone (``MicrophoneClaims``): Talk's capture and a pending
    /// barge-in check end; returns once they have. Nothing happens when Talk mode is off.
    public func pauseForPushToTalk() async {
        setPushToTalk(true)
        apply(.pttPause)
        await settle()
    }

    /// Push-to-talk released the microphone (Talk's own capture stays off while realtime Talk
    /// holds it).
    public func resumeAfterPushToTalk() {
        setPushToTalk(false)
        guard !heldByRealtime else { return }
        apply(.pttResume)
    }

    /// Realtime Talk over the relay takes the microphone and output (talk.md §9.2): native capture
    /// ends while Talk stays on (and is reported on); returns once the capture has ended.
    public func holdForRealtime() async {
        heldByRealtime = true
        apply(.pttPause)
        await settle()
    }

    /// Realtime Talk ended; with `resume` (its fallback) native Talk listens again.
    public func releaseRealtimeHold(resume: Bool) {
        guard heldByRealtime else { return }
        heldByRealtime = false
        if resume { apply(.pttResume) }
    }

    /// Ends Talk mode (reported as off) and waits for the side effects.
    public func shutdown() async {
        apply(.exit(.shutdown))
        await settle()
        gatewayListener?.cancel()
        await reportLane.drained()
    }

    /// Waits until the side effects queued so far have run.
    public func settle() async {
        await lane.drained()
    }

    /// Applies the gateway's `talk.config` (talk.md §5.7): its idle timeout when none is set locally,
    /// and `interruptOnSpeech: false` disabling barge-in.
    public func updateTalkConfig(_ config: TalkConfig?) {
        let effective = baseConfiguration.applying(config, localIdleTimeout: baseConfiguration.idleTimeout)
        apply(.setIdleTimeout(effective.idleTimeout))
        apply(.setBargeIn(effective.bargeIn))
    }

    // MARK: - Events

    /// Applies `event` and queues its side effects on the lane.
    func apply(_ event: TalkModeStateMachine.Event) {
        let before = machine.phase
        let actions = machine.handle(event)
        if machine.phase != before {
            logger.info("talk.phase", ["from": .string(before.rawValue), "to": .string(machine.phase.rawValue)])
            phaseBroadcast.publish(machine.phase)
        }
        guard !actions.isEmpty else { return }
        let effects = actions.map(effect)
        lane.enqueue {
            for effect in effects { await self.run(effect) }
        }
    }

    /// An action with the capture it is about, decided with the event (not later on the lane),
    /// so frames of a capture being closed never count for its successor.
    enum Effect: Sendable {
        case open(Int)
        case close(Int?)
        case finish(Int?)
        case speculate(Int?, number: Int)
        case check(Int?, end: Double?)
        case other(TalkModeStateMachine.Action)
    }

    private func effect(_ action: TalkModeStateMachine.Action) -> Effect {
        switch action {
        case .startCapture:
            generation += 1
            captures[generation] = OpenCapture()
            current = generation
            return .open(generation)
        case .cancelCapture:
            defer { current = nil }
            if let current { captures[current]?.monitor?.cancel() }
            return .close(current)
        case .finishCapture:
            defer { current = nil }
            if let current { captures[current]?.monitor?.cancel() }
            return .finish(current)
        case .pauseReply(true):
            // The onset: the speech run that paused playback starts here. A new onset while a
            // check runs keeps the first one: a recheck judges everything said since.
            let runStart = current.flatMap { captures[$0]?.runStart }
            pausesDecided += 1
            if !machine.isCheckPending {
                checkStart = runStart
                interruptionStart = nil
            }
            if let levels = current.flatMap({ captures[$0]?.levels }) {
                logger.debug(
                    "talk.onset",
                    [
                        "atS": .double(runStart ?? 0), "runRms": .double(levels.runMean),
                        "meanRms": .double(levels.mean), "residualRms": .double(machine.residualLevel),
                    ])
            }
            return .other(action)
        case .speculate(let number):
            return .speculate(current, number: number)
        case .dropSpeculation:
            if let current {
                captures[current]?.speculation?.task.cancel()
                captures[current]?.speculation = nil
            }
            return .other(action)
        case .checkBargeIn:
            defer { checkEnd = nil }
            return .check(current, end: checkEnd)
        case .trimCheckEnd(let seconds):
            checkEnd = current.flatMap { captures[$0] }.map { $0.lastFrame - seconds }
            return .other(action)
        case .restartTurn:
            if let current {
                captures[current]?.firstSpeech = nil
                captures[current]?.turnStart = nil
            }
            return .other(action)
        case .interruptingSpeechStarts(let seconds):
            interruptionStart = current.flatMap { captures[$0] }.map { $0.lastFrameEnd - seconds }
            return .other(action)
        case .keepInterruptingSpeech:
            let start = interruptionStart ?? checkStart
            if let current { captures[current]?.turnStart = start }
            logger.info(
                "talk.barge_in",
                [
                    "atS": .double(start ?? 0), "firstOnsetS": .double(checkStart ?? 0),
                    "voiceWhilePausedS": .double(machine.voiceHeardWhilePaused),
                    "voiceSinceCheckS": .double(machine.voiceHeardSinceCheck),
                ])
            interruptionStart = nil
            return .other(action)
        case .trimTurnEnd(let seconds):
            if let current, let open = captures[current] { captures[current]?.turnEnd = open.lastFrame - seconds }
            return .other(action)
        default:
            return .other(action)
        }
    }
}
