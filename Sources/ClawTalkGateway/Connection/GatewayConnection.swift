public import ClawTalkProtocol
public import ClawTalkSupport

/// One role's connection to one gateway (protocol.md §3–§8, §11, §15, §16): dials,
/// answers the challenge, keeps the socket alive, matches responses to requests, fans out
/// events, and reconnects, pauses or stops as the ``ConnectionStateMachine`` decides.
///
/// Thin by design: decisions live in the pure machine; this actor performs its actions. Each
/// socket runs in one task group (reader + watchdog) whose children die together; `epoch`
/// numbers the sockets for work that outlives one. WebSocket pings are the dialer's job
/// (the ``GatewaySocket`` seam has no ping). Start it with ``run()``; stop with ``stop()``.
public actor GatewayConnection {
    /// Static inputs.
    public nonisolated let configuration: GatewayConnectionConfiguration
    /// This install's identity (signs every `connect`).
    public nonisolated let identity: DeviceIdentity
    /// Per-gateway state (tokens, pins, remembered versions).
    public nonisolated let store: GatewayStore

    let dialer: any GatewayDialer
    let clock: any Clock<Duration>
    let now: ElapsedTime
    let logger: Logger

    var machine: ConnectionStateMachine
    /// Number of the current (or last) socket; incremented for every dial.
    public internal(set) var epoch = 0

    // Socket state.
    var currentSocket: (any GatewaySocket)?
    var socketTask: Task<SocketEnd, Never>?
    /// Close grace timers: children of the connection, not loose tasks.
    let children = OwnedTaskGroup()
    var handshake = HandshakePhase.idle
    var link: LiveLink?
    var lastInbound: Duration = .zero
    var pinUsed: TLSFingerprint?
    var lastMaxPayload = GatewayLimits.receiveLimitBeforeHello
    var pending: [String: ResponsePromise] = [:]

    // Run-loop state.
    var started = false
    var ended = false
    var nextStep = RunStep.connect
    var waiter: Waiter?
    var waiterToken = 0
    var waiterTimer: Task<Void, Never>?

    // Subscribers.
    /// ``subscribe(events:)``: lifecycle and events (newest ``subscriberBuffer`` unread kept).
    let connectionEvents = EventBroadcast<ConnectionEvent>(bufferingNewest: GatewayConnection.subscriberBuffer)
    /// ``events(named:)``: event frames (newest ``subscriberBuffer`` unread kept).
    let eventFrames = EventBroadcast<EventFrame>(bufferingNewest: GatewayConnection.subscriberBuffer)
    /// ``states()``: the newest 16 unread states per reader.
    let stateChanges = EventBroadcast<ConnectionState>(bufferingNewest: 16)
    var publishedState = ConnectionState.disconnected

    /// The device-pairing request reported since the last `hello-ok` (nil once connected): also
    /// set while the connection keeps retrying on `wait_then_retry`, when the state only says
    /// `waiting`. Read it when a ``states()`` value arrives (it is set before the state is published).
    public internal(set) var pairingRequest: PairingRequest?

    /// A connection; nothing happens until ``run()``.
    /// - Parameters:
    ///   - configuration: endpoint, role, credentials, timeouts.
    ///   - dialer: opens sockets (libwebsockets, or in-memory pairs in tests).
    ///   - identity: the device identity.
    ///   - store: per-gateway state; remembered signature version and client pair are read now.
    ///   - clock: drives every timeout and delay (`ContinuousClock()` in production).
    ///   - logger: category `gateway` is appended with the role.
    ///   - jitter: reconnect jitter source (seeded in tests).
    public init(
        configuration: GatewayConnectionConfiguration, dialer: any GatewayDialer, identity: DeviceIdentity,
        store: GatewayStore, clock: any Clock<Duration> = ContinuousClock(), logger: Logger = .discarding,
        jitter: Jitter = .random()
    ) {
        self.configuration = configuration
        self.dialer = dialer
        self.identity = identity
        self.store = store
        self.clock = clock
        self.now = ElapsedTime(clock)
        self.logger = logger.child(category: "gateway.\(configuration.role.gatewayRole.rawValue)")
        let key = configuration.endpoint.gatewayKey
        let endpoint = configuration.endpoint
        let machineConfiguration = ConnectionStateMachine.Configuration(
            role: configuration.role.gatewayRole, deviceId: identity.deviceId,
            bootstrapRouteTrusted: endpoint.isSecure || endpoint.isLocalNetwork,
            rememberedSignature: try? store.rememberedSignature(for: key),
            rememberedClientPair: configuration.role == .operator ? (try? store.operatorClientPair(for: key)) : nil,
            pairingReprobeInterval: configuration.pairingReprobeInterval,
            pairingReprobeLimit: configuration.pairingReprobeLimit, backoff: configuration.backoff)
        self.machine = ConnectionStateMachine(configuration: machineConfiguration, jitter: jitter)
    }

    /// The gateway key of the endpoint.
    public nonisolated var gatewayKey: String { configuration.endpoint.gatewayKey }

    /// The current status.
    public var state: ConnectionState { machine.state }

    /// The `hello-ok` of the live socket, if connected.
    public var hello: HelloOk? { link?.hello }

    /// True while a socket is live.
    public var isConnected: Bool { link != nil }

    /// Status changes, starting with the current one (newest 16 kept for slow readers).
    public func states() -> AsyncStream<ConnectionState> {
        stateChanges.subscribe(startingWith: machine.state)
    }

    /// User action (new setup code, config reload, `SIGHUP`, `clawtalk reconnect`): leave a
    /// pause or a backoff wait and connect now. Ignored while connecting or connected.
    public func resume() {
        perform(machine.handle(.userResumed))
        wake(.resumed)
    }

    /// Closes the socket with 1000, fails pending requests and ends ``run()``.
    public func stop() {
        perform(machine.handle(.stopRequested))
        wake(.stopped)
    }

    /// Sends the machine's state to state subscribers when it changed.
    func publishState() {
        let state = machine.state
        guard state != publishedState else { return }
        publishedState = state
        stateChanges.publish(state)
    }
}

/// Where the current socket is in the handshake.
enum HandshakePhase: Sendable {
    case idle
    case awaitingChallenge(since: Duration)
    case awaitingHello(requestId: String, since: Duration)
    case live
}

/// The live socket after `hello-ok`.
struct LiveLink: Sendable {
    let socket: any GatewaySocket
    let epoch: Int
    let hello: HelloOk
}

/// What the run loop does next.
enum RunStep: Sendable, Equatable {
    case connect
    case wait(Duration)
    case paused(reprobeAfter: Duration?)
    case finish
}
