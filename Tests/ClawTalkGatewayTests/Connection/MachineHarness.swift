import ClawTalkGateway
import ClawTalkProtocol

/// Drives a ``ConnectionStateMachine`` through attempts and outcomes for table tests.
struct MachineHarness {
    var machine: ConnectionStateMachine

    init(
        role: GatewayRole = .node, bootstrapRouteTrusted: Bool = true, remembered: RememberedSignature? = nil,
        rememberedPair: OperatorClientPair? = nil, reprobeLimit: Int = 30
    ) {
        machine = ConnectionStateMachine(
            configuration: .init(
                role: role, deviceId: "dev-1", bootstrapRouteTrusted: bootstrapRouteTrusted,
                rememberedSignature: remembered, rememberedClientPair: rememberedPair,
                pairingReprobeLimit: reprobeLimit),
            jitter: .none)
        _ = machine.handle(.start)
    }

    /// Reports a `connect` with the machine's current choices.
    mutating func attempt(
        _ credential: CredentialKind = .deviceToken, available: Set<CredentialKind>? = nil, trusted: Bool = true
    ) {
        let attempt = ConnectAttempt(
            credential: credential, available: available ?? (credential == .none ? [] : [credential]),
            signatureVersion: machine.signatureVersion,
            clientPair: machine.configuration.role == .operator ? machine.clientPair : nil, endpointTrusted: trusted)
        _ = machine.handle(.attemptStarted(attempt))
    }

    mutating func handle(_ event: ConnectionStateMachine.Event) -> [ConnectionStateMachine.Action] {
        machine.handle(event)
    }

    /// An attempt rejected with `rejection`.
    mutating func reject(
        _ rejection: ConnectRejection, credential: CredentialKind = .deviceToken, available: Set<CredentialKind>? = nil,
        trusted: Bool = true
    ) -> [ConnectionStateMachine.Action] {
        attempt(credential, available: available, trusted: trusted)
        return machine.handle(.rejected(rejection))
    }

    /// An attempt that reached `hello-ok`.
    mutating func connect(
        _ credential: CredentialKind = .deviceToken, serverVersion: String = "1.0", auth: HelloOk.Auth? = nil
    ) -> [ConnectionStateMachine.Action] {
        attempt(credential)
        return machine.handle(.helloOk(Self.hello(serverVersion: serverVersion, auth: auth)))
    }

    static func hello(serverVersion: String = "1.0", auth: HelloOk.Auth? = nil) -> HelloOk {
        HelloOk(
            protocolVersion: 4, server: .init(version: serverVersion, connId: "c"),
            features: .init(methods: [], events: []), auth: auth,
            policy: .init(maxPayload: 1 << 20, maxBufferedBytes: 1 << 21, tickIntervalMs: 30_000))
    }
}

/// A connect rejection with `details.code` and extra details.
func rejection(
    _ detail: String?, code: String = "INVALID_REQUEST", message: String = "refused", details extra: WireObject = [:],
    retryable: Bool? = nil, retryAfterMs: Int? = nil
) -> ConnectRejection {
    var details = extra
    if let detail { details["code"] = .string(detail) }
    return ConnectRejection(
        ErrorShape(
            code: code, message: message, details: details.isEmpty ? nil : .object(details), retryable: retryable,
            retryAfterMs: retryAfterMs))
}

extension [ConnectionStateMachine.Action] {
    /// The delay of the `reconnect` action, if any.
    var reconnectDelay: Duration? {
        for action in self { if case .reconnect(let delay) = action { return delay } }
        return nil
    }

    /// The `pause` action's info and re-probe delay, if any.
    var pause: (info: PauseInfo, reprobe: Duration?)? {
        for action in self { if case .pause(let info, let reprobe) = action { return (info, reprobe) } }
        return nil
    }

    /// The reported pairing request, if any.
    var pairing: PairingRequest? {
        for action in self { if case .reportPairingRequired(let request) = action { return request } }
        return nil
    }
}
