public import ClawTalkGateway
public import ClawTalkProtocol
public import ClawTalkSupport
import Foundation

/// Delivers transcripts to the gateway (talk.md §3) and never loses one silently.
///
/// - **Routes (talk.md §3.1):** push-to-talk and Talk turns go by operator `chat.send` in full mode,
///   wake commands by node event `voice.transcript` (or `chat.send`/`agent` per `wake.route`);
///   without the operator connection everything goes by `voice.transcript`. An operator request
///   that cannot be sent or is answered with an error falls back to `voice.transcript`; after a
///   timeout nothing is resent (the turn may be running).
/// - **Replies:** each delivered turn is handed to the ``ReplyTracker`` (by `runId` after
///   `chat.send`, by adoption before `voice.transcript`).
/// - **Outbox:** with no route connected a transcript is kept in the gateway's persistent outbox
///   (``QueuedTranscript``; at most ``Configuration/outboxCapacity``, oldest dropped with a
///   warning; expired after ``Configuration/outboxMaxAge``) and sent in order after reconnecting,
///   retried with backoff under the same `idempotencyKey`/`eventId`. `gateways forget` deletes
///   the file with the gateway's other data.
/// - **Wake routing (talk.md §6.2):** a wake command goes to the session its trigger is routed to
///   (``applyWakeRouting(_:)``, following the gateway's routing on both connections).
/// - **Prompt:** after a barge-in (``recordInterruption(afterSeconds:)``) the next prompt starts
///   with the interruption note (talk.md §3.5).
///
/// Sends are serialized so queued transcripts always go before newer ones.
public actor TranscriptDelivery: TranscriptDelivering {
    let configuration: Configuration
    let store: GatewayStore
    let tracker: ReplyTracker?
    let clock: any Clock<Duration>
    let now: @Sendable () -> Int64
    let logger: Logger

    var gatewayKey: String?
    var node: NodeSession?
    var operatorSession: OperatorSession?
    var outbox: OutboxQueue
    var mainSessionKey = TalkConfig.defaultSessionKey
    var pendingInterruption: Double?
    var nodeWatcher: Task<Void, Never>?
    var operatorWatcher: Task<Void, Never>?
    var wakeRouting = VoiceWakeRouting.default
    var nodeRoutingWatcher: Task<Void, Never>?
    var operatorRoutingWatcher: Task<Void, Never>?
    var flushTask: Task<Void, Never>?
    var flushAgain = false
    /// The send path, one transcript or outbox pass at a time in arrival order.
    let lane = AsyncLane()

    /// A delivery with no gateway attached yet.
    /// - Parameters:
    ///   - configuration: routes, session and outbox limits.
    ///   - store: per-gateway state; the outbox file lives next to the gateway's record.
    ///   - tracker: follows the replies of delivered turns (nil: replies are not tracked).
    ///   - clock: drives the flush backoff.
    ///   - now: wall-clock milliseconds (capture times, expiry, history matching).
    ///   - logger: category `talk.delivery` is appended.
    public init(
        configuration: Configuration, store: GatewayStore, tracker: ReplyTracker?,
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Int64 = DeviceIdentity.currentTimeMs,
        logger: Logger = .discarding
    ) {
        self.configuration = configuration
        outbox = OutboxQueue(configuration: configuration)
        self.store = store
        self.tracker = tracker
        self.clock = clock
        self.now = now
        self.logger = logger.child(category: "talk.delivery")
    }

    // MARK: - Gateway

    /// Delivers to the gateway `gatewayKey` over `node` from now on: loads its outbox,
    /// subscribes the session's chat events and flushes whenever the node connects.
    public func attach(gatewayKey: String, node session: NodeSession) async {
        detach()
        self.gatewayKey = gatewayKey
        node = session
        outbox = OutboxQueue(entries: loadOutbox(gatewayKey), configuration: configuration)
        do {
            try await session.subscribeChat(sessionKey: sessionKey)
        } catch {
            logger.warning("delivery.subscribe.failed", ["error": .string("\(error)")])
        }
        nodeWatcher = watch(await session.subscribe(events: []))
        nodeRoutingWatcher = followWakeRouting(session.voiceWakeRouting())
        kickFlush()
    }

    /// Uses `session` for `chat.send`/`agent` (nil: node-only); flushes when it connects.
    public func attach(operator session: OperatorSession?) async {
        operatorWatcher?.cancel()
        operatorRoutingWatcher?.cancel()
        operatorWatcher = nil
        operatorRoutingWatcher = nil
        operatorSession = session
        guard let session else { return }
        operatorWatcher = watch(await session.subscribe(events: []))
        operatorRoutingWatcher = followWakeRouting(session.voiceWakeRouting())
        kickFlush()
    }

    /// Forgets the gateway (its outbox stays on disk for the next attach).
    public func detach() {
        for task in [nodeWatcher, operatorWatcher, nodeRoutingWatcher, operatorRoutingWatcher, flushTask] {
            task?.cancel()
        }
        nodeWatcher = nil
        operatorWatcher = nil
        nodeRoutingWatcher = nil
        operatorRoutingWatcher = nil
        flushTask = nil
        wakeRouting = .default
        node = nil
        operatorSession = nil
        gatewayKey = nil
        outbox = OutboxQueue(configuration: configuration)
    }

    /// `session.mainKey` from `talk.config` (talk.md §3.5); the new session is subscribed.
    public func updateTalkConfig(_ config: TalkConfig) async {
        guard config.sessionMainKey != mainSessionKey else { return }
        mainSessionKey = config.sessionMainKey
        guard configuration.sessionKey == nil, let node else { return }
        do {
            try await node.subscribeChat(sessionKey: mainSessionKey)
        } catch {
            logger.warning("delivery.subscribe.failed", ["error": .string("\(error)")])
        }
    }

    /// The previous reply was barged in after `seconds`: the next prompt says so (talk.md §3.5).
    public func recordInterruption(afterSeconds seconds: Double) {
        pendingInterruption = seconds
    }

    /// The session transcripts go to: `talk.sessionKey`, else `session.mainKey`, else `main`.
    public var sessionKey: String {
        configuration.sessionKey ?? mainSessionKey
    }

    /// Transcripts waiting in the outbox, oldest first.
    public var queued: [QueuedTranscript] { outbox.entries }

    /// True when the node or the operator connection is up (else a transcript is queued and
    /// push-to-talk reports `offline`).
    public var hasConnectedRoute: Bool {
        get async {
            let nodeUp = await node?.isSocketConnected ?? false
            let operatorUp = await operatorSession?.isConnected ?? false
            return nodeUp || operatorUp
        }
    }

    // MARK: - Delivering

    /// Delivers `transcript`; see ``deliver(_:source:trigger:)``.
    public func deliver(_ transcript: String, source: TranscriptSource) async -> DeliveryReceipt {
        await deliver(transcript, source: source, trigger: nil)
    }

    /// Delivers `transcript` (trimmed) from `source`; `trigger` is the wake word for the
    /// `agent` route. Queued transcripts go first.
    public func deliver(_ transcript: String, source: TranscriptSource, trigger: String?) async -> DeliveryReceipt {
        let id = WireID.make()
        let text = transcript.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return DeliveryReceipt(outcome: .failed("empty transcript"), id: id) }
        guard gatewayKey != nil else {
            logger.warning("delivery.no_gateway", ["text": .string(text)])
            return DeliveryReceipt(outcome: .failed("no gateway configured"), id: id)
        }
        let interruption = pendingInterruption
        pendingInterruption = nil
        let entry = QueuedTranscript(
            id: id, message: PromptBuilder.message(text, interruptedAfter: interruption), source: source,
            trigger: trigger, sessionKey: sessionKey(for: source, trigger: trigger), queuedAtMs: now())
        return await lane.run { await self.deliverInLane(entry, text: text) }
    }

    /// ``deliver(_:source:trigger:)`` on the send lane: the outbox first, then `entry`.
    private func deliverInLane(_ entry: QueuedTranscript, text: String) async -> DeliveryReceipt {
        let id = entry.id
        if !outbox.isEmpty, await hasConnectedRoute { _ = await drainOutbox(trackLast: false) }
        guard outbox.isEmpty else {
            enqueue(entry)
            return DeliveryReceipt(outcome: .queuedOffline, id: id)
        }
        switch await send(entry, trackReply: true) {
        case .sent(let route):
            logger.info("delivery.sent", ["route": .string(route.rawValue), "id": .string(id), "text": .string(text)])
            return DeliveryReceipt(outcome: .sent(route: route), id: id)
        case .retry(let reason):
            logger.notice("delivery.queued", ["id": .string(id), "reason": .string(reason)])
            enqueue(entry)
            return DeliveryReceipt(outcome: .queuedOffline, id: id)
        case .dropped(let reason):
            logger.error("delivery.failed", ["id": .string(id), "reason": .string(reason), "text": .string(text)])
            return DeliveryReceipt(outcome: .failed(reason), id: id)
        }
    }

    /// Kicks a flush whenever `connection` (re)connects.
    private func watch(_ events: AsyncStream<ConnectionEvent>) -> Task<Void, Never> {
        // Unstructured on purpose: the caller keeps the handle and cancels it with the session.
        Task { [weak self] in
            for await event in events {
                if case .connected = event { await self?.connectionCameUp() }
            }
        }
    }

    private func connectionCameUp() async {
        await settleSessions()
        kickFlush()
    }
}
