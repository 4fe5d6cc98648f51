public import ClawTalkProtocol
public import ClawTalkSupport

/// The node's work on top of a node-role ``GatewayConnection`` (protocol.md §10):
/// answers `node.invoke.request` through registered handlers (each in its own task, off the
/// receive loop, under the ``InvokeRouter``'s rules), applies `node.invoke.cancel`, sends
/// `node.event`s, re-subscribes chat sessions after every `hello-ok`, and surfaces pushed
/// `voicewake.changed` lists and `voicewake.routing.changed` configs. Results carry the socket
/// epoch of their request and are dropped, never replayed, when the socket changed. Start it
/// with ``run()`` next to the connection's.
public actor NodeSession {
    /// A command handler returning the result payload as JSON text (nil: no payload).
    public typealias Handler = @Sendable (InvokeContext) async throws -> String?

    /// The node connection.
    public nonisolated let connection: GatewayConnection
    /// This node's id (the deviceId).
    public nonisolated let nodeId: String
    /// Send `node.presence.alive {trigger:"connect"}` after each `hello-ok`.
    public let sendsPresenceOnConnect: Bool

    let logger: Logger
    let clock: any Clock<Duration>
    let now: ElapsedTime
    var router: InvokeRouter
    var handlers: [String: Handler] = [:]
    var invokes: [String: InvokeTasks] = [:]
    var chatSessions: Set<String> = []
    var liveEpoch: Int?
    let fanout = SessionFanout()
    /// Invoke results and the work of a `hello-ok` (re-subscribe, presence): children of the
    /// session, not loose tasks.
    let children = OwnedTaskGroup()
    var closeHandlers: [@Sendable (Int) async -> Void] = []
    nonisolated let triggers = LatestValueBroadcast<[String]>()
    nonisolated let routing = LatestValueBroadcast<VoiceWakeRouting>()

    /// The tasks of one running invoke.
    struct InvokeTasks {
        let work: Task<Void, Never>
        let timer: Task<Void, Never>
    }

    /// A session over `connection` (which must have the node role).
    public init(
        connection: GatewayConnection, clock: any Clock<Duration> = ContinuousClock(), logger: Logger = .discarding,
        limits: InvokeRouter.Limits = InvokeRouter.Limits(), sendsPresenceOnConnect: Bool = true
    ) {
        precondition(connection.configuration.role.nodeSurface != nil, "NodeSession needs a node-role connection")
        self.connection = connection
        self.nodeId = connection.identity.deviceId
        self.clock = clock
        self.now = ElapsedTime(clock)
        self.logger = logger.child(category: "node.session")
        self.router = InvokeRouter(nodeId: connection.identity.deviceId, limits: limits)
        self.sendsPresenceOnConnect = sendsPresenceOnConnect
    }

    /// Commands declared in `connect.commands`.
    public nonisolated var declaredCommands: [String] {
        connection.configuration.role.nodeSurface?.commands ?? []
    }

    /// Registers the handler of `command` (replacing an earlier one); it should be declared.
    public func register(_ command: String, payloadJSON handler: @escaping Handler) {
        if !declaredCommands.contains(command) {
            logger.warning("invoke.handler.undeclared", ["command": .string(command)])
        }
        handlers[command] = handler
    }

    /// Registers a handler whose result payload is a JSON value (sent as `payloadJSON` text).
    public func register(_ command: String, handler: @escaping @Sendable (InvokeContext) async throws -> WireJSON) {
        register(command, payloadJSON: { context in try await handler(context).encodedString() })
    }

    /// Calls `handler` with the epoch of every socket that ends after its `hello-ok`, also when
    /// the session stops while connected (the work its invokes started has no caller left).
    /// The handler runs in the session's loop: it should return quickly.
    public func onSocketClosed(_ handler: @escaping @Sendable (Int) async -> Void) {
        closeHandlers.append(handler)
    }

    /// Invokes running now.
    public var runningInvokes: Int { router.runningCount }

    /// True while the session has seen `hello-ok` of the live socket.
    public var isConnected: Bool { liveEpoch != nil }

    /// Handles the connection's events until the connection stops or this task is cancelled.
    public func run() async {
        let names: Set<String> = [
            GatewayEventName.nodeInvokeRequest.rawValue, GatewayEventName.nodeInvokeCancel.rawValue,
            GatewayEventName.voiceWakeChanged.rawValue, GatewayEventName.voiceWakeRoutingChanged.rawValue,
        ]
        fanout.start()
        for await event in await connection.subscribe(events: nil) {
            switch event {
            case .connected(let epoch, _):
                liveEpoch = epoch
                connected(epoch: epoch)
            case .event(let epoch, let frame):
                if names.contains(frame.event) { receive(frame, epoch: epoch) }
            case .disconnected(let epoch, _):
                if liveEpoch == epoch { liveEpoch = nil }
                await socketClosed(epoch)
            }
            fanout.forward(event)
        }
        // Stopped (or cancelled) while connected: that socket is gone for this session too.
        if let epoch = liveEpoch {
            liveEpoch = nil
            await socketClosed(epoch)
        }
        fanout.finish(reason: "node session stopped")
    }

    /// The connection's lifecycle and the gateway events named in `names` (nil: all), each
    /// after this session has handled it: `connected` means the session is ready (delivered at
    /// once when it already is), then the socket's events, then `disconnected`. The stream ends
    /// when the session stops.
    public func subscribe(events names: Set<String>? = nil) -> AsyncStream<ConnectionEvent> {
        fanout.subscribe(names: names)
    }

    /// True while the connection's socket is open and has seen `hello-ok`, whether or not this
    /// session has handled it yet (``isConnected``).
    public var isSocketConnected: Bool {
        get async { await connection.isConnected }
    }

    private func socketClosed(_ epoch: Int) async {
        for handler in closeHandlers { await handler(epoch) }
    }

    /// Sends a `node.event` and returns the gateway's answer.
    @discardableResult
    public func sendEvent(_ params: NodeEventParams, timeout: Duration? = nil) async throws -> NodeEventResult {
        try await sendEvent(params, timeout: timeout, epoch: nil)
    }

    /// Adds `sessionKey` to the chat sessions in use and sends `chat.subscribe` now if connected
    /// (it is re-sent after every `hello-ok`).
    public func subscribeChat(sessionKey: String) async throws {
        chatSessions.insert(sessionKey)
        guard liveEpoch != nil else { return }
        try await sendEvent(.chatSubscribe(sessionKey: sessionKey))
    }

    /// Removes `sessionKey` and sends `chat.unsubscribe` if connected.
    public func unsubscribeChat(sessionKey: String) async throws {
        guard chatSessions.remove(sessionKey) != nil, liveEpoch != nil else { return }
        try await sendEvent(.chatUnsubscribe(sessionKey: sessionKey))
    }

    /// Chat sessions re-subscribed after each `hello-ok`.
    public var subscribedChatSessions: Set<String> { chatSessions }

    /// Trigger lists pushed by `voicewake.changed` on the node connection, newest first kept.
    public nonisolated func voiceWakeTriggers() -> AsyncStream<[String]> {
        triggers.subscribe(replayingLatest: false)
    }

    /// Wake routing pushed by `voicewake.routing.changed` on the node connection (talk.md
    /// §6.2), the last one received first.
    public nonisolated func voiceWakeRouting() -> AsyncStream<VoiceWakeRouting> {
        routing.subscribe(replayingLatest: true)
    }

    @discardableResult
    func sendEvent(_ params: NodeEventParams, timeout: Duration?, epoch: Int?) async throws -> NodeEventResult {
        let json = try WireJSON(encoding: params)
        let payload = try await connection.request(
            method: NodeEventParams.method, params: json, timeout: timeout, epoch: epoch)
        return NodeEventResult(json: payload)
    }

    /// After `hello-ok`: re-subscribe chat sessions, then announce presence (off the loop).
    private func connected(epoch: Int) {
        let sessions = chatSessions.sorted()
        let presence = sendsPresenceOnConnect
        children.spawn {
            for sessionKey in sessions {
                do {
                    try await self.sendEvent(.chatSubscribe(sessionKey: sessionKey), timeout: nil, epoch: epoch)
                } catch {
                    self.logger.warning(
                        "chat.resubscribe.failed", ["sessionKey": .string(sessionKey), "error": .string("\(error)")])
                }
            }
            if presence {
                do {
                    let sentAt = DeviceIdentity.currentTimeMs()
                    try await self.sendEvent(
                        .presenceAlive(NodePresenceAlive(trigger: .connect, sentAtMs: sentAt)), timeout: nil,
                        epoch: epoch)
                } catch {
                    self.logger.debug("presence.failed", ["error": .string("\(error)")])
                }
            }
        }
    }

    private func receive(_ frame: EventFrame, epoch: Int) {
        switch frame.name {
        case .nodeInvokeRequest:
            receiveInvoke(frame, epoch: epoch)
        case .nodeInvokeCancel:
            receiveCancel(frame)
        case .voiceWakeChanged:
            do {
                let triggers = try VoiceWakeTriggers(json: frame.payload).triggers
                // Persisted first, as in OperatorSession: whoever sees the list finds it stored.
                defer { self.triggers.publish(triggers) }
                try connection.store.setVoiceWakeTriggers(triggers, for: connection.gatewayKey)
                logger.info("voicewake.changed", ["count": .int(triggers.count)])
            } catch {
                logger.warning("voicewake.changed.invalid", ["error": .string("\(error)")])
            }
        case .voiceWakeRoutingChanged:
            do {
                let config = try VoiceWakeRouting(payload: frame.payload)
                routing.publish(config)
                logger.info("voicewake.routing.changed", ["routes": .int(config.routes.count)])
            } catch {
                logger.warning("voicewake.routing.invalid", ["error": .string("\(error)")])
            }
        default:
            break
        }
    }
}
