import ClawTalkProtocol
public import ClawTalkSpeech
public import ClawTalkSupport

/// Push-to-talk for remote `talk.ptt.*` invokes and the local hotkey/CLI (talk.md §2):
/// owns a ``PTTStateMachine`` and performs its actions through the seams.
///
/// - Beginning a capture stops speech (no interruption), claims the microphone from Talk mode and
///   voice wake (``MicrophoneClaims``) and opens it (``UtteranceCapturing``); these steps run in
///   order on one lane, so a release never overtakes the acquisition before it.
/// - `once` ends when silence follows speech for ``PTTConfiguration/silenceWindow`` (judged per
///   frame from the capture's own frame times), or at the hard cap (12 s, or the invoke's
///   deadline − 2 s when that is sooner). `ptt` captures end at the stop or the safety cap, or,
///   when the node connection that started them closes (``connectionClosed(connection:)``), at
///   the next such pause (at once if nothing is being said, at most
///   ``PTTConfiguration/controllerLossCap`` later); that transcript goes to the outbox.
/// - Finalizing stops the capture, transcribes the utterance (bounded by
///   ``PTTConfiguration/transcriptionTimeout`` and by the earliest waiting invoke's deadline),
///   and delivers a non-empty transcript (``TranscriptDelivering``, source push-to-talk):
///   sent → `queued`; kept offline or failed → `offline`. A delivery still running when a
///   waiting invoke must be answered is reported `queued` (it carries on in the background).
/// - Cancelling the task that awaits ``perform(_:timeout:)`` (an invoke cancel or timeout) acts
///   like `cancel` for that request's capture. ``shutdown()`` ends an active capture `cancelled`.
///
/// Timers use the injected clock; capture ids are lowercase UUID v4 by default.
public actor PTTController {
    /// The timings.
    public nonisolated let configuration: PTTConfiguration

    let capturing: any UtteranceCapturing
    let transcriber: any Transcriber
    let delivery: any TranscriptDelivering
    let speech: any SpeechStopping
    let microphone: MicrophoneClaims?
    let clock: any Clock<Duration>
    let elapsed: ElapsedTime
    let logger: Logger

    var machine: PTTStateMachine
    var pending: [PTTStateMachine.RequestID: Pending] = [:]
    var nextRequest = 1
    let lane = AsyncLane()
    /// Deliveries waiting for their outcome: children of the controller, not loose tasks.
    let children = OwnedTaskGroup()
    var opening: [String: Task<Void, Never>] = [:]
    var active: [String: ActiveCapture] = [:]
    var finalizing: [String: Task<Void, Never>] = [:]

    /// A request waiting for its response.
    struct Pending {
        let continuation: CheckedContinuation<PTTResponse, Never>
        /// Elapsed-time instant by which an invoke must be answered.
        let deadline: Duration?
    }

    /// An open capture and its silence monitor, cap timer and controller-loss timer.
    struct ActiveCapture {
        let capture: any UtteranceCapture
        /// Reports speech and pauses; its value is where the speech was.
        var monitor: Task<SpeechTimeline, Never>?
        var timer: Task<Void, Never>?
        var lossTimer: Task<Void, Never>?
        /// The capture's transcription started at a pause (``PTTConfiguration/speculateAfter``).
        var speculation: Speculation?

        /// Stops the monitor and the timers.
        func cancelTasks() {
            monitor?.cancel()
            timer?.cancel()
            lossTimer?.cancel()
        }
    }

    /// A transcription of a capture up to a pause; its value is nil when it failed or was
    /// cancelled. It stands for the capture when no speech came after `speechEnd`.
    struct Speculation {
        /// Capture time of the end of the last speech it holds.
        var speechEnd: Double
        var task: Task<Transcript?, Never>
    }

    /// A controller over the given seams.
    public init(
        capturing: any UtteranceCapturing, transcriber: any Transcriber, delivery: any TranscriptDelivering,
        speech: any SpeechStopping, microphone: MicrophoneClaims? = nil,
        configuration: PTTConfiguration = PTTConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(), logger: Logger = .discarding,
        makeCaptureID: @escaping PTTStateMachine.CaptureIDMaker = { _ in PTTStateMachine.randomCaptureID() }
    ) {
        self.capturing = capturing
        self.transcriber = transcriber
        self.delivery = delivery
        self.speech = speech
        self.microphone = microphone
        self.configuration = configuration
        self.clock = clock
        self.elapsed = ElapsedTime(clock)
        self.logger = logger.child(category: "ptt")
        self.machine = PTTStateMachine(makeCaptureID: makeCaptureID)
    }

    /// The machine's state.
    public var state: PTTStateMachine.State { machine.state }

    /// Runs `command` from `origin` and returns its answer. `timeout` is the invoke's deadline
    /// (nil for local commands): a `once` capture and the finalization are cut so the answer
    /// comes in time. Cancelling the calling task cancels the request's capture (like `cancel`).
    public func perform(
        _ command: PTTStateMachine.Command, timeout: Duration? = nil, origin: PTTStateMachine.Origin = .local
    ) async -> PTTResponse {
        await request(command, timeout: timeout, origin: origin)
    }

    /// The node connection's socket `connection` (its epoch) closed: a `ptt` capture it started
    /// has no controller left and ends at its next pause (talk.md §2.7).
    public func connectionClosed(connection: Int) {
        apply(.connectionClosed(connection: connection))
    }

    /// The local toggle: `start` when idle, else `stop`.
    public func toggle() async -> PTTResponse {
        await request(machine.state == .idle ? .start : .stop, timeout: nil, origin: .local)
    }

    /// Ends an active capture `cancelled`, answers every waiting request and waits for the
    /// side effects (capture closed, microphone released). Later commands do not begin captures.
    public func shutdown() async {
        apply(.shutdown)
        await lane.drained()
    }

    /// Waits until the side effects queued so far have run (for tests and orderly shutdown).
    public func settle() async {
        await lane.drained()
    }

    // MARK: - Requests

    private func request(
        _ command: PTTStateMachine.Command, timeout: Duration?, origin: PTTStateMachine.Origin
    ) async -> PTTResponse {
        let id = nextRequest
        nextRequest += 1
        let deadline = timeout.map { elapsed() + $0 }
        logger.info("ptt.command", ["command": .string(command.rawValue), "request": .int(id), "origin": origin.field])
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                pending[id] = Pending(continuation: continuation, deadline: deadline)
                apply(.command(command, id, origin: origin))
                if Task.isCancelled { apply(.abandoned(id)) }
            }
        } onCancel: {
            // Unstructured on purpose: a cancellation handler is synchronous and cannot await
            // the actor; the task only hops onto it.
            Task { await self.abandon(id) }
        }
    }

    private func abandon(_ id: PTTStateMachine.RequestID) {
        guard pending[id] != nil else { return }
        logger.info("ptt.request.abandoned", ["request": .int(id)])
        apply(.abandoned(id))
    }

    /// Applies `event`: answers at once, queues the other actions on the lane.
    func apply(_ event: PTTStateMachine.Event) {
        let before = machine.state
        let actions = machine.handle(event)
        let after = machine.state
        if before != after { logger.debug("ptt.state", ["from": .string("\(before)"), "to": .string("\(after)")]) }
        logControllerLoss(event, actions)
        var effects: [PTTStateMachine.Action] = []
        for action in actions {
            guard case .respond(let request, let response) = action else {
                effects.append(action)
                continue
            }
            logResponse(request, response)
            pending.removeValue(forKey: request)?.continuation.resume(returning: response)
        }
        guard !effects.isEmpty else { return }
        lane.enqueue { [effects] in
            for effect in effects { await self.run(effect) }
        }
    }

    private func logResponse(_ request: PTTStateMachine.RequestID, _ response: PTTResponse) {
        switch response {
        case .started(let captureId):
            logger.info("ptt.started", ["request": .int(request), "captureId": .string(captureId)])
        case .finished(let result):
            logger.info(
                "ptt.result",
                [
                    "request": .int(request), "captureId": .string(result.captureId),
                    "status": .string(result.status.rawValue), "transcript": .string(result.transcript ?? ""),
                ])
        case .failed(let failure):
            logger.warning("ptt.failed", ["request": .int(request), "error": .string(failure.description)])
        }
    }

    /// The earliest deadline of a waiting invoke, as elapsed time.
    var earliestDeadline: Duration? {
        pending.values.compactMap(\.deadline).min()
    }

    /// `limit`, shortened so a waiting invoke can still be answered (at least 200 ms).
    func budget(_ limit: Duration?) -> Duration? {
        guard let deadline = earliestDeadline else { return limit }
        let left = max(deadline - elapsed() - configuration.responseMargin, .milliseconds(200))
        return limit.map { min($0, left) } ?? left
    }
}
