public import ClawTalkProtocol
public import ClawTalkSupport

/// The optional operator connection's rules (protocol.md §14) on top of an
/// operator-role ``GatewayConnection``: call a method only when `hello-ok.features.methods`
/// lists it (else ``GatewayError/methodUnavailable(_:)``); a `FORBIDDEN`/`MISSING_SCOPE`
/// answer disables that method for the socket's lifetime (logged once); after each
/// `hello-ok` fetch `voicewake.get` and `voicewake.routing.get` (8 s each, when offered) and
/// surface the triggers and the wake routing, as well as pushed `voicewake.changed` and
/// `voicewake.routing.changed`. The node works without it (node-only mode).
public actor OperatorSession {
    /// The operator connection.
    public nonisolated let connection: GatewayConnection
    let logger: Logger
    var hello: HelloOk?
    var epoch: Int?
    var disabled: [String: String] = [:]
    let fanout = SessionFanout()
    nonisolated let triggers = LatestValueBroadcast<[String]>()
    nonisolated let routing = LatestValueBroadcast<VoiceWakeRouting>()

    /// The last trigger list received (from `voicewake.get` or `voicewake.changed`).
    public var lastTriggers: [String]? { triggers.latest }

    /// A session over `connection` (which must have the operator role).
    public init(connection: GatewayConnection, logger: Logger = .discarding) {
        precondition(connection.configuration.role == .operator, "OperatorSession needs an operator-role connection")
        self.connection = connection
        self.logger = logger.child(category: "operator.session")
    }

    /// Handles the connection's lifecycle until it stops or this task is cancelled.
    public func run() async {
        let names: Set<String> = [
            GatewayEventName.voiceWakeChanged.rawValue, GatewayEventName.voiceWakeRoutingChanged.rawValue,
        ]
        fanout.start()
        // Work started on a `hello-ok` (the trigger and routing reads) is a child of this run.
        await withDiscardingTaskGroup { group in
            for await event in await connection.subscribe(events: nil) {
                defer { fanout.forward(event) }
                switch event {
                case .event(_, let frame) where !names.contains(frame.event):
                    break
                case .connected(let epoch, let hello):
                    self.hello = hello
                    self.epoch = epoch
                    disabled = [:]
                    // Methods the granted scopes do not cover are not called on this socket.
                    let missing = OperatorScopes.notGranted(by: hello.auth?.scopes)
                    for (method, scope) in missing.sorted(by: { $0.key.rawValue < $1.key.rawValue })
                    where hello.supports(method: method.rawValue) {
                        disabled[method.rawValue] = scope
                        logger.warning(
                            "operator.method.not_granted",
                            ["method": .string(method.rawValue), "missingScope": .string(scope)])
                    }
                    group.addTask {
                        await self.fetchTriggers(epoch: epoch)
                        await self.fetchRouting(epoch: epoch)
                    }
                case .event(_, let frame) where frame.name == .voiceWakeRoutingChanged:
                    publishRouting(frame.payload, source: GatewayEventName.voiceWakeRoutingChanged.rawValue)
                case .event(_, let frame):
                    if let triggers = try? VoiceWakeTriggers(json: frame.payload).triggers {
                        publish(triggers, source: "voicewake.changed")
                    }
                case .disconnected(let epoch, _):
                    if self.epoch == epoch {
                        self.epoch = nil
                        hello = nil
                    }
                }
            }
        }
        epoch = nil
        hello = nil
        fanout.finish(reason: "operator session stopped")
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

    /// True while the session has seen `hello-ok` of the live socket.
    public var isConnected: Bool { epoch != nil }

    /// The scopes the live socket's `hello-ok` granted (`auth.scopes`; upstream reports the
    /// socket's effective scopes there); nil when not connected or the gateway reports none.
    public var grantedScopes: [String]? {
        guard epoch != nil else { return nil }
        return hello?.auth?.scopes
    }

    /// Whether `method` can be called now: connected, advertised, not disabled.
    public func isAvailable(_ method: String) -> Bool {
        guard let hello, epoch != nil else { return false }
        return hello.supports(method: method) && disabled[method] == nil
    }

    /// Calls an operator method on the live socket.
    /// - Throws: ``GatewayError/notConnected``, ``GatewayError/methodUnavailable(_:)`` when not
    ///   advertised, ``GatewayError/methodForbidden(method:missingScope:)`` after an earlier
    ///   `FORBIDDEN` on this socket, or the request's error.
    /// - Parameter timeout: default: the method's timeout from talk.md §8, else 15 s.
    public func call(_ method: String, params: WireJSON? = nil, timeout: Duration? = nil) async throws -> WireJSON {
        guard let hello, let epoch else { throw GatewayError.notConnected }
        guard hello.supports(method: method) else { throw GatewayError.methodUnavailable(method) }
        if let scope = disabled[method] {
            throw GatewayError.methodForbidden(method: method, missingScope: scope.isEmpty ? nil : scope)
        }
        let limit = timeout ?? OperatorMethod(rawValue: method).map { .milliseconds($0.defaultTimeoutMs) }
        do {
            return try await connection.request(method: method, params: params, timeout: limit, epoch: epoch)
        } catch GatewayError.response(_, let error) where error.gatewayCode == .forbidden || error.isMissingScope {
            // Re-check after the await: only the socket that refused loses the method.
            if self.epoch == epoch, disabled[method] == nil {
                disabled[method] = error.missingScope ?? ""
                logger.warning(
                    "operator.method.disabled",
                    ["method": .string(method), "missingScope": .string(error.missingScope ?? "-")])
            }
            throw GatewayError.response(method: method, error: error)
        }
    }

    /// Sends an operator request now and returns its pending answer (for pipelined calls such
    /// as `talk.session.appendAudio`: started in order from one task, awaited concurrently).
    /// Same availability checks as ``call(_:params:timeout:)``; a `FORBIDDEN` answer is thrown
    /// by ``PendingResponse/response()`` without disabling the method.
    public func start(_ method: String, params: WireJSON? = nil, timeout: Duration? = nil) async throws
        -> PendingResponse
    {
        guard let hello, let epoch else { throw GatewayError.notConnected }
        guard hello.supports(method: method) else { throw GatewayError.methodUnavailable(method) }
        if let scope = disabled[method] {
            throw GatewayError.methodForbidden(method: method, missingScope: scope.isEmpty ? nil : scope)
        }
        let limit = timeout ?? OperatorMethod(rawValue: method).map { .milliseconds($0.defaultTimeoutMs) }
        return try await connection.startRequest(method: method, params: params, timeout: limit, epoch: epoch)
    }

    /// Trigger lists from `voicewake.get` after each `hello-ok` and from `voicewake.changed`.
    public nonisolated func voiceWakeTriggers() -> AsyncStream<[String]> {
        triggers.subscribe(replayingLatest: true)
    }

    /// Wake routing from `voicewake.routing.get` after each `hello-ok` and from
    /// `voicewake.routing.changed` (talk.md §6.2), the current one first.
    public nonisolated func voiceWakeRouting() -> AsyncStream<VoiceWakeRouting> {
        routing.subscribe(replayingLatest: true)
    }

    /// `voicewake.get` (8 s) after `hello-ok` (talk.md §6.1).
    private func fetchTriggers(epoch: Int) async {
        let method = OperatorMethod.voiceWakeGet.rawValue
        guard self.epoch == epoch, isAvailable(method) else { return }
        do {
            let payload = try await call(method, timeout: .milliseconds(OperatorMethod.voiceWakeGet.defaultTimeoutMs))
            publish(try VoiceWakeTriggers(json: payload).triggers, source: method)
        } catch {
            logger.warning("voicewake.get.failed", ["error": .string("\(error)")])
        }
    }

    /// `voicewake.routing.get` (8 s) after `hello-ok`, when the gateway offers it.
    private func fetchRouting(epoch: Int) async {
        let method = OperatorMethod.voiceWakeRoutingGet.rawValue
        guard self.epoch == epoch, isAvailable(method) else { return }
        do {
            publishRouting(try await call(method), source: method)
        } catch {
            logger.warning("voicewake.routing.get.failed", ["error": .string("\(error)")])
        }
    }

    private func publishRouting(_ payload: WireJSON?, source: String) {
        do {
            let config = try VoiceWakeRouting(payload: payload)
            routing.publish(config)
            logger.info("voicewake.routing", ["source": .string(source), "routes": .int(config.routes.count)])
        } catch {
            logger.warning("voicewake.routing.invalid", ["source": .string(source), "error": .string("\(error)")])
        }
    }

    /// Persists, then publishes: whoever sees the new list can find it stored.
    private func publish(_ triggers: [String], source: String) {
        do {
            try connection.store.setVoiceWakeTriggers(triggers, for: connection.gatewayKey)
        } catch {
            logger.error("voicewake.persist.failed", ["error": .string("\(error)")])
        }
        self.triggers.publish(triggers)
        logger.info("voicewake.triggers", ["source": .string(source), "count": .int(triggers.count)])
    }
}
