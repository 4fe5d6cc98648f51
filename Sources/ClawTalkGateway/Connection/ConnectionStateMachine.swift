public import ClawTalkProtocol

/// Every reconnect decision of one connection, as a pure machine (protocol.md §5, §6.2,
/// §7.4, §8.2, §11.3, §14, §15, §16): `handle(event)` updates the state and returns the
/// actions for ``GatewayConnection`` to perform. No clock, no I/O: randomness comes from the
/// ``Backoff``'s injected ``Jitter``.
public struct ConnectionStateMachine: Sendable {
    /// Fixed inputs of one connection.
    public struct Configuration: Sendable, Hashable {
        /// The connection's role.
        public var role: GatewayRole
        /// This device's id (shown with pairing requests).
        public var deviceId: String
        /// A bootstrap over this route may store `auth.deviceTokens[]` (wss:// or local network, protocol.md §17.2.3).
        public var bootstrapRouteTrusted: Bool
        /// Signature version remembered for the gateway key.
        public var rememberedSignature: RememberedSignature?
        /// Operator client pair remembered for the gateway key.
        public var rememberedClientPair: OperatorClientPair?
        /// Pause re-probe period while waiting for pairing approval (60 s).
        public var pairingReprobeInterval: Duration
        /// Most re-probes per pause (30 → 30 minutes).
        public var pairingReprobeLimit: Int
        /// Delay table.
        public var backoff: Backoff.Configuration

        /// A configuration; the defaults are the spec's values.
        public init(
            role: GatewayRole, deviceId: String, bootstrapRouteTrusted: Bool = false,
            rememberedSignature: RememberedSignature? = nil, rememberedClientPair: OperatorClientPair? = nil,
            pairingReprobeInterval: Duration = .seconds(60), pairingReprobeLimit: Int = 30,
            backoff: Backoff.Configuration = Backoff.Configuration()
        ) {
            self.role = role
            self.deviceId = deviceId
            self.bootstrapRouteTrusted = bootstrapRouteTrusted
            self.rememberedSignature = rememberedSignature
            self.rememberedClientPair = rememberedClientPair
            self.pairingReprobeInterval = pairingReprobeInterval
            self.pairingReprobeLimit = pairingReprobeLimit
            self.backoff = backoff
        }
    }

    /// The fixed inputs.
    public let configuration: Configuration
    /// Status for `clawtalk status`.
    public internal(set) var state: ConnectionState = .disconnected
    /// Layout to sign the next `connect` with.
    public internal(set) var signatureVersion: DeviceAuthVersion
    /// Operator client pair for the next `connect`.
    public internal(set) var clientPair: OperatorClientPair
    /// The next `connect` should send the stored device token (protocol.md §7.4 single retry).
    public internal(set) var prefersDeviceToken = false
    /// The delay state.
    public internal(set) var backoff: Backoff

    var remembered: RememberedSignature?
    var rememberedPair: OperatorClientPair?
    var lastAttempt: ConnectAttempt?
    var attempts = 0
    var signaturesTried: Set<DeviceAuthVersion> = []
    var deviceTokenRetryUsed = false
    var tokenClearedRetryUsed = false
    var clientPairFallbackUsed = false
    var invalidatedRetryUsed = false
    var consecutiveOversize = 0
    var pairingReprobes = 0
    /// `.some(hint)` once `shutdown` was announced on the current socket.
    var announcedRestart: Int??
    var stopped = false

    /// A machine before its first attempt.
    public init(configuration: Configuration, jitter: Jitter = .random()) {
        self.configuration = configuration
        self.backoff = Backoff(configuration: configuration.backoff, jitter: jitter)
        self.remembered = configuration.rememberedSignature
        self.signatureVersion = configuration.rememberedSignature?.version ?? .v3
        self.rememberedPair = configuration.rememberedClientPair
        self.clientPair =
            configuration.role == .operator ? (configuration.rememberedClientPair ?? .gatewayClient) : .gatewayClient
    }

    /// Applies `event` and returns what to do.
    public mutating func handle(_ event: Event) -> [Action] {
        if stopped { return [.finish] }
        switch event {
        case .start:
            return [.connect]
        case .attemptStarted(let attempt):
            lastAttempt = attempt
            attempts += 1
            announcedRestart = nil
            signaturesTried.insert(attempt.signatureVersion)
            state = .connecting(attempt: attempts)
            return []
        case .helloOk(let hello):
            return helloOk(hello)
        case .rejected(let rejection):
            endSocket(code: nil)
            return rejected(rejection)
        case .closed(let code, let reason):
            return closed(code: code, reason: reason)
        case .shutdownAnnounced(let restartExpectedMs):
            announcedRestart = .some(restartExpectedMs)
            return []
        case .watchdogExpired:
            return endThenRetry(cause: "tick watchdog (no frame for 2 × tickIntervalMs)")
        case .handshakeTimedOut(let message), .transportFailed(let message), .protocolViolation(let message):
            return endThenRetry(cause: message)
        case .pinMismatch(let message):
            return endThenRetry(cause: "TLS pin mismatch: \(message)")
        case .localFailure(let info):
            endSocket(code: nil)
            return pause(info, reprobeAfter: nil)
        case .reprobeDue:
            guard case .paused(let info) = state, info.pairing != nil else { return [] }
            return [.connect]
        case .userResumed:
            switch state {
            case .paused, .waiting:
                resetForUser()
                return [.connect]
            default:
                return []
            }
        case .stopRequested:
            stopped = true
            state = .stopped
            return [.closeSocket(code: 1000, reason: "client stopping"), .finish]
        }
    }

    // MARK: - Outcomes

    private mutating func helloOk(_ hello: HelloOk) -> [Action] {
        var actions: [Action] = []
        let attempt = lastAttempt
        backoff.reset()
        attempts = 0
        signaturesTried = []
        deviceTokenRetryUsed = false
        tokenClearedRetryUsed = false
        pairingReprobes = 0
        prefersDeviceToken = false
        if let auth = hello.auth {
            let additional = attempt?.credential == .bootstrapToken && configuration.bootstrapRouteTrusted
            actions.append(.persistDeviceTokens(auth, additionalRoles: additional))
        }
        if attempt?.credential == .bootstrapToken { actions.append(.clearBootstrapToken) }
        switch attempt?.signatureVersion ?? signatureVersion {
        case .v2:
            if let remembered, remembered.version == .v2 {
                if remembered.serverVersion != hello.server.version {
                    self.remembered = nil
                    signatureVersion = .v3
                    actions.append(.forgetSignatureVersion)
                }
            } else {
                let learned = RememberedSignature(version: .v2, serverVersion: hello.server.version)
                remembered = learned
                actions.append(.rememberSignatureVersion(learned))
            }
        case .v3:
            if remembered != nil {
                remembered = nil
                actions.append(.forgetSignatureVersion)
            }
        }
        if configuration.role == .operator, let pair = attempt?.clientPair, pair == .cli, rememberedPair != .cli {
            rememberedPair = pair
            actions.append(.rememberOperatorClientPair(pair))
        }
        state = .connected(HelloSummary(hello, requestedRole: configuration.role))
        return actions
    }

    private mutating func closed(code: Int?, reason: String) -> [Action] {
        let restart = announcedRestart
        endSocket(code: code)
        if let restart {
            return wait(backoff.restart(restartExpectedMs: restart), cause: "gateway restart")
        }
        let described =
            reason.isEmpty
            ? "closed (\(code.map(String.init) ?? "no code"))"
            : "closed (\(code.map(String.init) ?? "no code")): \(Self.oneLine(reason))"
        switch code {
        case 1012:
            return wait(backoff.restart(restartExpectedMs: nil), cause: "gateway restart (1012)")
        case 1013:
            return wait(backoff.startup(retryAfterMs: nil), cause: "gateway starting (1013)")
        case 1002:
            return pause(
                PauseInfo(
                    code: ConnectDetailCode.protocolMismatch.rawValue, message: described,
                    nextStep: Self.nextStep(for: .protocolMismatch)),
                reprobeAfter: nil)
        case 4001:
            guard !invalidatedRetryUsed else { return retry(cause: described) }
            invalidatedRetryUsed = true
            return wait(backoff.singleRetry, cause: "client invalidated (4001)")
        case 1009:
            consecutiveOversize += 1
            guard consecutiveOversize >= 2 else { return retry(cause: described) }
            return pause(
                PauseInfo(
                    code: "FRAME_TOO_LARGE", message: "two consecutive sockets closed with 1009 (frame too large)",
                    nextStep:
                        "check the gateway's policy.maxPayload and logs, then reconnect (clawtalk reconnect or SIGHUP)"),
                reprobeAfter: nil)
        default:
            return retry(cause: described)
        }
    }

    // MARK: - Helpers

    /// Bookkeeping common to every end of a socket.
    mutating func endSocket(code: Int?) {
        announcedRestart = nil
        prefersDeviceToken = false
        if code != 1009 { consecutiveOversize = 0 }
    }

    private mutating func endThenRetry(cause: String) -> [Action] {
        let restart = announcedRestart
        endSocket(code: nil)
        if let restart { return wait(backoff.restart(restartExpectedMs: restart), cause: "gateway restart") }
        return retry(cause: cause)
    }

    /// Normal backoff.
    mutating func retry(cause: String) -> [Action] {
        wait(backoff.next(), cause: cause)
    }

    /// A fixed delay.
    mutating func wait(_ delay: Duration, cause: String) -> [Action] {
        state = .waiting(retryIn: delay, cause: cause)
        return [.reconnect(after: delay)]
    }

    /// Stop reconnecting.
    mutating func pause(_ info: PauseInfo, reprobeAfter: Duration?) -> [Action] {
        state = .paused(info)
        return [.pause(info, reprobeAfter: reprobeAfter)]
    }

    private mutating func resetForUser() {
        backoff.reset()
        attempts = 0
        signaturesTried = []
        deviceTokenRetryUsed = false
        tokenClearedRetryUsed = false
        clientPairFallbackUsed = false
        invalidatedRetryUsed = false
        consecutiveOversize = 0
        pairingReprobes = 0
        prefersDeviceToken = false
        signatureVersion = remembered?.version ?? .v3
        if configuration.role == .operator { clientPair = rememberedPair ?? .gatewayClient }
    }

    /// First line, at most 200 characters (server text in status output).
    static func oneLine(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }
}
