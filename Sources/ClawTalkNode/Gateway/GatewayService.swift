import ClawTalkDesktop
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import Foundation

/// The gateway side of `clawtalk run`: resolves the gateway (``GatewayTarget``), runs the node
/// connection with its ``NodeSession`` and, when `gateway.operator.enabled`, the operator
/// connection with its ``OperatorSession`` on the same identity, until cancelled. Every state
/// change is written to the ``StatusFile``.
///
/// The operator connection starts once the node connection is up for the first time, so an
/// unpaired device does not raise two competing pairing requests. `SIGHUP` (``reload()``)
/// re-reads the registry's current gateway: a different gateway ends the session and starts
/// one for the new gateway; the same gateway resumes paused or waiting connections at once.
/// Cancellation stops both connections (close 1000) and removes the status file. An
/// ``GatewaySessionObserver`` (the talk features) is told as sessions start and end.
package actor GatewayService {
    /// Builds the connections.
    nonisolated let factory: GatewayConnectionFactory
    /// Where the status goes (nil: nowhere, for tests).
    nonisolated let statusFile: StatusFile?
    let logger: Logger
    let reloadSignals: [Int32]
    let resolveTarget: @Sendable () throws -> GatewayTarget?
    /// Called with each new ``NodeSession`` before it runs (registers command handlers).
    let configureNode: @Sendable (NodeSession) async -> Void
    /// Follows the sessions (nil: nobody).
    nonisolated let observer: (any GatewaySessionObserver)?
    /// Desktop notifications for pairing requests and pauses (nil: none).
    nonisolated let notifier: DesktopNotifier?

    private(set) var status: ServiceStatus
    private var session: Session?
    private var generation = 0
    private var reloading = false
    private var reloadAgain = false
    /// The reloads `SIGHUP` starts, as children of ``run()``.
    private let children = ChildTaskQueue()
    /// Desktop notifications: children of the service but not of ``run()``, since the
    /// notifier's D-Bus call blocks (up to D-Bus's timeout when the notification server hangs)
    /// and a stop must not wait for it.
    private let notifications = OwnedTaskGroup()
    /// ``statusUpdates()``: the newest 32 unread snapshots per reader.
    private let statusBroadcast = EventBroadcast<ServiceStatus>(bufferingNewest: 32)
    private var lastLevelPublish = ContinuousClock.now - .seconds(1)
    /// The level last written to the status file.
    private var publishedLevel: Double?

    /// The connections of one gateway.
    struct Session {
        let generation: Int
        let target: GatewayTarget
        let node: GatewayConnection
        var operatorConnection: GatewayConnection?
        var task: Task<Void, Never>?
    }

    /// A service; `resolveTarget` defaults to ``GatewayTarget/resolve(settings:store:)``;
    /// `configureNode` sets up each node session (e.g. the `talk.ptt.*` handlers).
    init(
        factory: GatewayConnectionFactory, statusFile: StatusFile?, logger: Logger,
        reloadSignals: [Int32] = [SIGHUP], resolveTarget: (@Sendable () throws -> GatewayTarget?)? = nil,
        configureNode: @escaping @Sendable (NodeSession) async -> Void = { _ in },
        observer: (any GatewaySessionObserver)? = nil, notifier: DesktopNotifier? = nil
    ) {
        self.factory = factory
        self.observer = observer
        self.notifier = notifier
        self.statusFile = statusFile
        self.logger = logger.child(category: "service.gateway")
        self.reloadSignals = reloadSignals
        self.configureNode = configureNode
        self.resolveTarget =
            resolveTarget ?? { [factory] in
                try GatewayTarget.resolve(settings: factory.settings.gateway, store: factory.store)
            }
        let now = ServiceStatus.timestamp()
        let surface = factory.surface
        status = ServiceStatus(
            pid: ProcessInfo.processInfo.processIdentifier, version: ClawTalkVersion.current, startedAt: now,
            updatedAt: now, deviceId: factory.identity.deviceId, gateway: nil,
            node: .idle("disconnected", summary: "starting", at: now),
            operator: .idle("disconnected", summary: "starting", at: now), caps: surface.caps.map(\.rawValue),
            commands: surface.commands,
            permissions: Dictionary(uniqueKeysWithValues: surface.permissions.map { ($0.key.rawValue, $0.value) }),
            voice: .idle(at: now))
    }

    /// Runs until the calling task is cancelled.
    package func run() async {
        let listener = SignalListener(signals: reloadSignals) { [weak self, children] _ in
            guard let self else { return }
            children.spawn { await self.reload() }
        }
        await listener.start()
        startSession(with: resolve())
        // Until cancelled; a reload still running then ends before the session does.
        await children.run()
        listener.cancel()
        await endSession()
        let now = ServiceStatus.timestamp()
        status.node = .idle("stopped", summary: "stopped", at: now)
        status.operator = .idle("stopped", summary: "stopped", at: now)
        statusBroadcast.finish()
        statusFile?.remove(ifOwnedBy: status.pid)
    }

    /// `SIGHUP`: re-resolve the gateway; switch to a different one, else resume the connections.
    func reload() async {
        guard !reloading else {
            reloadAgain = true
            return
        }
        reloading = true
        defer { reloading = false }
        repeat {
            reloadAgain = false
            let target = resolve()
            logger.info("service.reload", ["gateway": .string(target?.endpoint.urlString ?? "none")])
            if let session, session.target == target {
                await session.node.resume()
                await session.operatorConnection?.resume()
            } else if session != nil || target != nil {
                await endSession()
                startSession(with: target)
            }
        } while reloadAgain
    }

    /// Status snapshots, starting with the current one (for tests and embedding).
    /// After the service stopped, a new stream gets the last snapshot and ends.
    func statusUpdates() -> AsyncStream<ServiceStatus> {
        statusBroadcast.subscribe(startingWith: status)
    }

    // MARK: - Voice activity (status --watch)

    /// The voice pipeline entered `phase` (PTT, wake and Talk mode call this).
    func setPhase(_ phase: VoiceActivity.Phase) {
        var voice = status.voice ?? .idle(at: ServiceStatus.timestamp())
        guard voice.phase != phase else { return }
        voice.phase = phase
        voice.phaseSince = ServiceStatus.timestamp()
        status.voice = voice
        publish()
    }

    /// The microphone level in dBFS; written at most every 200 ms (the level meter's rate).
    func setInputLevel(dbfs: Double) {
        var voice = status.voice ?? .idle(at: ServiceStatus.timestamp())
        voice.levelDBFS = (dbfs * 10).rounded() / 10
        status.voice = voice
        // The meter of `status --watch`: a change of 3 dB or more (speech) is written within
        // 200 ms; small drift (room noise, silence) at most every 2 s. Each write is a JSON encode
        // and an atomic file replace, which at 5 Hz in silence was the idle service's biggest cost.
        let now = ContinuousClock.now
        let change = abs((publishedLevel ?? -200) - (voice.levelDBFS ?? -200))
        let wait: Duration = change >= 3 ? .milliseconds(200) : .seconds(2)
        guard change >= 0.5, now - lastLevelPublish >= wait else { return }
        lastLevelPublish = now
        publish()
    }

    /// A transcript was delivered.
    func setLastTranscript(_ text: String) {
        var voice = status.voice ?? .idle(at: ServiceStatus.timestamp())
        voice.lastTranscript = text
        voice.lastTranscriptAt = ServiceStatus.timestamp()
        status.voice = voice
        publish()
    }

    /// Realtime Talk's provider answered (its transcript).
    func setLastReply(_ text: String) {
        var voice = status.voice ?? .idle(at: ServiceStatus.timestamp())
        voice.lastReply = text
        voice.lastReplyAt = ServiceStatus.timestamp()
        status.voice = voice
        publish()
    }

    /// Realtime Talk over the relay started or ended.
    func setRealtimeRelay(_ running: Bool) {
        var voice = status.voice ?? .idle(at: ServiceStatus.timestamp())
        guard voice.realtimeRelay != running else { return }
        voice.realtimeRelay = running
        status.voice = voice
        publish()
    }

    /// The speech-to-text server changed (supervised, external or none; ready or not).
    func setSpeechServer(_ server: SpeechServerStatus) {
        guard status.speechServer != server else { return }
        status.speechServer = server
        publish()
    }

    /// The wake-word keyword scorer changed.
    func setWakeScorer(_ server: SpeechServerStatus) {
        guard status.wakeScorer != server else { return }
        status.wakeScorer = server
        publish()
    }

    /// The node connection of the current session.
    var nodeConnection: GatewayConnection? { session?.node }

    // MARK: - Sessions

    private func resolve() -> GatewayTarget? {
        do {
            return try resolveTarget()
        } catch {
            logger.error("gateway.unresolved", ["error": .string("\(error)")])
            status.lastError = "\(error)"
            status.lastErrorAt = ServiceStatus.timestamp()
            return nil
        }
    }

    private func startSession(with target: GatewayTarget?) {
        generation += 1
        let now = ServiceStatus.timestamp()
        let operatorEnabled = factory.settings.gateway.operator.enabled
        guard let target else {
            session = nil
            status.gateway = nil
            let hint = "pair with 'clawtalk pair <setup code>' or set gateway.url"
            status.node = .idle("unconfigured", summary: "no gateway configured: \(hint)", at: now)
            status.operator = .idle("unconfigured", summary: "no gateway configured", at: now)
            logger.notice("gateway.unconfigured", ["hint": .string(hint)])
            publish()
            return
        }
        status.gateway = ServiceStatus.Gateway(
            url: target.endpoint.urlString, key: target.key, source: target.source.rawValue)
        status.node = .idle("disconnected", summary: "starting", at: now)
        status.operator =
            operatorEnabled
            ? .idle("waiting-for-node", summary: "starts once the node connection is up", at: now)
            : .idle("disabled", summary: "disabled (gateway.operator.enabled is false)", at: now)
        logger.info(
            "gateway.target",
            [
                "url": .string(target.endpoint.urlString), "key": .string(target.key),
                "source": .string(target.source.rawValue),
            ])
        let node = factory.nodeConnection(for: target)
        var started = Session(generation: generation, target: target, node: node)
        let generation = self.generation
        started.task = Task { await self.runSession(generation, target: target, node: node) }
        session = started
        publish()
    }

    private func endSession() async {
        guard let current = session else { return }
        session = nil
        generation += 1
        current.task?.cancel()
        await current.task?.value
    }

    private nonisolated func runSession(_ generation: Int, target: GatewayTarget, node: GatewayConnection) async {
        let nodeSession = NodeSession(connection: node, logger: logger)
        await configureNode(nodeSession)
        let operatorEnabled = factory.settings.gateway.operator.enabled
        await observer?.nodeSessionStarted(nodeSession, gatewayKey: target.key)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await node.run() }
            group.addTask { await nodeSession.run() }
            group.addTask { await self.watch(node, role: .node, generation: generation) }
            if operatorEnabled {
                group.addTask { await self.runOperator(generation, target: target, node: node) }
            }
        }
        await observer?.sessionEnded()
    }

    private nonisolated func runOperator(_ generation: Int, target: GatewayTarget, node: GatewayConnection) async {
        for await state in await node.states() where state.isConnected { break }
        guard !Task.isCancelled else { return }
        let connection = factory.operatorConnection(for: target)
        guard await attachOperator(connection, generation: generation) else { return }
        let operatorSession = OperatorSession(connection: connection, logger: logger)
        await observer?.operatorSessionStarted(operatorSession)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await connection.run() }
            group.addTask { await operatorSession.run() }
            group.addTask { await self.watch(connection, role: .operator, generation: generation) }
        }
    }

    private func attachOperator(_ connection: GatewayConnection, generation: Int) -> Bool {
        guard generation == self.generation, session != nil else { return false }
        session?.operatorConnection = connection
        return true
    }

    private nonisolated func watch(_ connection: GatewayConnection, role: GatewayRole, generation: Int) async {
        for await state in await connection.states() {
            let pairing = await connection.pairingRequest
            await update(role, state: state, pairing: pairing, generation: generation)
        }
    }

    // MARK: - Status

    private func update(_ role: GatewayRole, state: ConnectionState, pairing: PairingRequest?, generation: Int) {
        guard generation == self.generation else { return }
        let now = ServiceStatus.timestamp()
        let previous = role == .node ? status.node : status.operator
        var next = ServiceStatus.Role(state, pairing: pairing, since: now)
        if next.state == previous.state { next.since = previous.since }
        if let problem = next.problem {
            status.lastError = "\(role.rawValue): \(problem)"
            status.lastErrorAt = now
        }
        if let request = next.pairing, request != previous.pairing {
            logger.notice(
                "gateway.pairing.pending",
                [
                    "role": .string(role.rawValue), "deviceId": .string(request.deviceId),
                    "requestId": .string(request.requestId ?? "-"), "approve": .string(request.approvalCommand),
                ])
            if let notifier {
                let notification = DesktopNotification.pairingRequired(
                    requestId: request.requestId, approvalCommand: request.approvalCommand)
                notifications.spawn { await notifier.notify(notification) }
            }
        } else if let pause = next.pause, pause != previous.pause, let notifier {
            let notification = DesktopNotification.error(
                "\(role.rawValue) connection paused: \(pause.message). \(pause.nextStep)")
            notifications.spawn { await notifier.notify(notification) }
        }
        if role == .node { status.node = next } else { status.operator = next }
        publish()
    }

    /// Writes the file, then tells the subscribers (so they can read the file).
    private func publish() {
        status.updatedAt = ServiceStatus.timestamp()
        publishedLevel = status.voice?.levelDBFS
        if let statusFile {
            do {
                try statusFile.write(status)
            } catch {
                logger.throttled(key: "status.write", every: .seconds(60))
                    .error(
                        "service.status.write_failed",
                        ["path": .string(statusFile.path), "error": .string("\(error)")])
            }
        }
        statusBroadcast.publish(status)
    }
}
