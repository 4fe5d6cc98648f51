import ClawTalkGateway
import ClawTalkProtocol
import Foundation

/// The connect handshake of protocol.md §7 (checklist 1–24), phase by phase in upstream
/// order: frame → params schema → startup window → protocol → role → device identity →
/// device proof → auth → pairing → `hello-ok`.
extension TestGateway {
    /// A request frame (closed: `type`, `id`, `method`, `params?`).
    static let requestFrameSchema = WireSchema.closed(
        [
            "type": .string(minLength: 1, oneOf: ["req"]), "id": .nonEmptyString, "method": .nonEmptyString,
            "params": .any,
        ],
        required: ["type", "id", "method"])

    /// The request in `data`, or nil when it is not a valid request frame.
    static func requestFrame(_ data: Data) -> RequestFrame? {
        guard let json = try? WireJSON(parsing: data), requestFrameSchema.firstError(json) == nil else { return nil }
        return try? RequestFrame(json: json)
    }

    func handleHandshakeMessage(_ id: Int, data: Data) {
        if data.count > GatewayLimits.preauthMaxPayloadBytes {
            closeConnection(id, code: 1009, reason: "preauth payload too large")
            return
        }
        guard let request = Self.requestFrame(data) else {
            closeConnection(id, code: 1008, reason: "invalid request frame")
            return
        }
        guard request.method == ConnectParams.method else {
            rejectConnect(id, request.id, .invalidRequest, "invalid handshake: first request must be connect")
            return
        }
        let params = request.params ?? .null
        if let error = ConnectSchema.params.firstError(params) {
            rejectConnect(id, request.id, .invalidRequest, "invalid connect params: \(error)")
            return
        }
        admit(id, ParsedConnect(requestId: request.id, params: params.objectValue ?? WireObject()))
    }

    /// Sends `ok:false`, reports it and closes with `closeCode` (reason = message by default).
    func rejectConnect(
        _ id: Int, _ requestId: String, _ code: GatewayErrorCode, _ message: String, details: WireJSON? = nil,
        retryable: Bool? = nil, retryAfterMs: Int? = nil, closeCode: Int = 1008, closeReason: String? = nil
    ) {
        let error = ErrorShape(
            code: code.rawValue, message: message, details: details, retryable: retryable, retryAfterMs: retryAfterMs)
        respondError(id, requestId, error)
        emit(.rejected(connection: id, code: code.rawValue, detailCode: error.detailCode))
        closeConnection(id, code: closeCode, reason: closeReason ?? message)
    }

    func admit(_ id: Int, _ connect: ParsedConnect) {
        let requestId = connect.requestId
        if configuration.startingUp {
            rejectConnect(
                id, requestId, .unavailable, "gateway starting; retry shortly", details: ["reason": "startup-sidecars"],
                retryable: true, retryAfterMs: configuration.startupRetryAfterMs, closeCode: 1013,
                closeReason: "gateway starting")
            return
        }
        guard Self.protocolAccepted(connect) else {
            let details: WireJSON = [
                "code": .string(ConnectDetailCode.protocolMismatch.rawValue),
                "clientMinProtocol": .integer(connect.minProtocol), "clientMaxProtocol": .integer(connect.maxProtocol),
                "expectedProtocol": .integer(Int64(ProtocolVersion.current)), "minimumProbeProtocol": 3,
            ]
            rejectConnect(id, requestId, .invalidRequest, "protocol mismatch", details: details, closeCode: 1002)
            return
        }
        guard GatewayRole(rawValue: connect.role) != nil else {
            rejectConnect(id, requestId, .invalidRequest, "invalid role")
            return
        }
        guard let device = connect.device, let connection = connections[id] else {
            rejectConnect(
                id, requestId, .notPaired, "device identity required",
                details: ["code": .string(ConnectDetailCode.deviceIdentityRequired.rawValue)])
            return
        }
        let proof = DeviceProofVerifier.verify(
            connect, device: device, challengeNonce: connection.nonce, nowMs: nowMs,
            policy: configuration.signaturePolicy)
        let verified: VerifiedDevice
        switch proof {
        case .success(let value):
            verified = value
        case .failure(let failure):
            rejectConnect(
                id, requestId, .invalidRequest, failure.message,
                details: ["code": .string(failure.detailCode.rawValue), "reason": .string(failure.rawValue)])
            return
        }
        let method: TestGatewaySession.AuthMethod
        switch authenticate(connect, device: verified) {
        case .success(let value):
            method = value
        case .failure(let failure):
            rejectUnauthorized(id, connect, failure)
            return
        }
        guard authorizeDevice(id, connect, verified, method) else { return }
        sendHelloOk(id, connect, verified, method)
    }

    /// `min ≤ 4 ≤ max`; N-1 (3) for `role:"node"` + `mode:"node"`; probes from 3.
    static func protocolAccepted(_ connect: ParsedConnect) -> Bool {
        let current = Int64(ProtocolVersion.current)
        let (low, high) = (connect.minProtocol, connect.maxProtocol)
        if low <= current && high >= current { return true }
        if connect.clientMode == GatewayClientMode.probe.rawValue && high >= 3 && low <= current { return true }
        let isNode = connect.raw["role"]?.stringValue == GatewayRole.node.rawValue
        return isNode && connect.clientMode == GatewayClientMode.node.rawValue && high >= 3 && low <= 3
    }

    func sendHelloOk(
        _ id: Int, _ connect: ParsedConnect, _ device: VerifiedDevice, _ method: TestGatewaySession.AuthMethod
    ) {
        let issued = ensureDeviceToken(deviceId: device.deviceId, role: connect.role, scopes: connect.scopes)
        if method == .bootstrapToken, let token = connect.bootstrapToken { bootstrapTokens[token]?.revoked = true }
        let isNode = connect.role == GatewayRole.node.rawValue
        if isNode { reconcileSurface(nodeId: device.deviceId, caps: connect.caps, commands: connect.commands) }
        let session = TestGatewaySession(
            connection: id, role: connect.role, deviceId: device.deviceId, clientId: connect.clientId,
            clientMode: connect.clientMode, platform: connect.platform, deviceFamily: connect.deviceFamily,
            scopes: connect.scopes, caps: connect.caps, declaredCommands: connect.commands,
            effectiveCommands: isNode
                ? effectiveCommands(nodeId: device.deviceId, caps: connect.caps, commands: connect.commands) : [],
            protocolRange: connect.minProtocol...max(connect.minProtocol, connect.maxProtocol),
            signatureVersion: device.signatureVersion, authMethod: method, deviceToken: issued.token)
        connections[id]?.session = session
        connections[id]?.phase = .established
        let policy = configuration.policy
        let hello: WireJSON = [
            "type": "hello-ok", "protocol": .integer(Int64(ProtocolVersion.current)),
            "server": ["version": .string(configuration.serverVersion), "connId": .string("conn-\(id)")],
            "features": [
                "methods": .array(configuration.methods.map(WireJSON.string)),
                "events": .array(configuration.events.map(WireJSON.string)),
            ],
            "snapshot": [
                "presence": [], "health": [:], "stateVersion": ["presence": 0, "health": 0],
                "uptimeMs": .integer(max(0, nowMs - startedAtMs)), "authMode": .string(configuration.auth.name),
            ],
            "auth": [
                "deviceToken": .string(issued.token), "role": .string(connect.role),
                "scopes": .array(connect.scopes.map(WireJSON.string)), "issuedAtMs": .integer(issued.issuedAtMs),
            ],
            "policy": [
                "maxPayload": .integer(Int64(policy.maxPayload)),
                "maxBufferedBytes": .integer(Int64(policy.maxBufferedBytes)),
                "tickIntervalMs": .integer(Int64(policy.tickIntervalMs)),
            ],
        ]
        respond(id, connect.requestId, hello)
        emit(.connected(connection: id, role: connect.role, deviceId: device.deviceId))
        startTicks(id)
        if isNode && configuration.pushVoiceWakeOnNodeConnect {
            sendBroadcast(id, "voicewake.changed", ["triggers": .array(voiceWakeTriggers.map(WireJSON.string))])
            sendBroadcast(id, "voicewake.routing.changed", ["config": voiceWakeRouting])
        }
    }
}
