import ClawTalkGateway
import ClawTalkProtocol

/// Device pairing of protocol.md §8 (checklist 17–21, 39): unknown devices, role, scope
/// and metadata upgrades, pending-request reuse, supersede and 5-minute expiry, bootstrap and
/// loopback auto-approval, and scripted approval.
extension TestGateway {
    /// True to continue to `hello-ok`; false when a pairing rejection was sent.
    func authorizeDevice(
        _ id: Int, _ connect: ParsedConnect, _ device: VerifiedDevice, _ method: TestGatewaySession.AuthMethod
    ) -> Bool {
        guard let paired = pairedDevices[device.deviceId], paired.publicKey == device.publicKey else {
            return requirePairing(id, connect, device, method, reason: .notPaired, existing: nil)
        }
        let norm = DeviceAuthPayload.normalizeMetadata
        let platformChanged = paired.platform.map { !norm($0).isEmpty && norm($0) != norm(connect.platform) } ?? false
        let familyChanged =
            paired.deviceFamily.map { !norm($0).isEmpty && norm($0) != norm(connect.deviceFamily) } ?? false
        if platformChanged || familyChanged {
            return requirePairing(id, connect, device, method, reason: .metadataUpgrade, existing: paired)
        }
        if !paired.roles.contains(connect.role) {
            return requirePairing(id, connect, device, method, reason: .roleUpgrade, existing: paired)
        }
        if !connect.scopes.isEmpty && !Self.scopesAllow(connect.scopes, granted: paired.scopes) {
            return requirePairing(id, connect, device, method, reason: .scopeUpgrade, existing: paired)
        }
        return true
    }

    func requirePairing(
        _ id: Int, _ connect: ParsedConnect, _ device: VerifiedDevice, _ method: TestGatewaySession.AuthMethod,
        reason: PairingReason, existing: PairedDevice?
    ) -> Bool {
        let isNodeRequest =
            connect.role == GatewayRole.node.rawValue && connect.scopes.isEmpty
            && connect.clientMode == GatewayClientMode.node.rawValue
        let bootstrapNode = method == .bootstrapToken && reason == .notPaired && existing == nil && isNodeRequest
        let silentBootstrap =
            bootstrapNode && configuration.bootstrapApprovesNodeProfile
            && connect.clientId == GatewayClientID.nodeHost.rawValue
        let silentLocal =
            configuration.autoApproveLoopback && connections[id]?.link.isLoopback == true
            && (reason == .notPaired || reason == .roleUpgrade)
            && !(existing != nil && connect.role != GatewayRole.operator.rawValue)
        let request = upsertPairingRequest(
            TestPairingRequest(
                requestId: "", deviceId: device.deviceId, publicKey: device.publicKey, reason: reason.rawValue,
                role: connect.role, scopes: connect.scopes, platform: connect.platform,
                deviceFamily: connect.deviceFamily, instanceId: connect.instanceId, createdAtMs: nowMs,
                viaBootstrap: bootstrapNode, caps: connect.caps, commands: connect.commands))
        if silentBootstrap || silentLocal {
            approvePairing(request)
            return true
        }
        var details: WireObject = [
            "code": .string(ConnectDetailCode.pairingRequired.rawValue), "reason": .string(reason.rawValue),
            "requestId": .string(request.requestId), "remediationHint": .string(Self.remediationHint(reason)),
        ]
        if bootstrapNode {
            details["recommendedNextStep"] = .string(RecommendedNextStep.waitThenRetry.rawValue)
            details["retryable"] = true
            details["pauseReconnect"] = false
        }
        details["deviceId"] = .string(device.deviceId)
        details["requestedRole"] = .string(connect.role)
        details["requestedScopes"] = .array(connect.scopes.map(WireJSON.string))
        if let existing, !existing.roles.isEmpty {
            details["approvedRoles"] = .array(existing.roles.sorted().map(WireJSON.string))
            if !existing.scopes.isEmpty {
                details["approvedScopes"] = .array(existing.scopes.sorted().map(WireJSON.string))
            }
        }
        let message = "pairing required: \(Self.requirement(reason))"
        rejectConnect(
            id, connect.requestId, .notPaired, message, details: .object(details),
            closeReason: "\(message) (requestId: \(request.requestId))")
        return false
    }

    static func requirement(_ reason: PairingReason) -> String {
        switch reason {
        case .notPaired: "device is not approved yet"
        case .roleUpgrade: "device is asking for a higher role than currently approved"
        case .scopeUpgrade: "device is asking for more scopes than currently approved"
        case .metadataUpgrade: "device identity changed and must be re-approved"
        }
    }

    static func remediationHint(_ reason: PairingReason) -> String {
        switch reason {
        case .notPaired: "Approve this device from the pending pairing requests."
        case .roleUpgrade: "Review the requested role upgrade, then approve the pending request."
        case .scopeUpgrade: "Review the requested scopes, then approve the pending upgrade."
        case .metadataUpgrade: "Review the refreshed device details, then approve the pending request."
        }
    }

    /// Reuses a pending request with identical details, else supersedes the device's (or the
    /// install's) pending requests and creates a new one.
    func upsertPairingRequest(_ candidate: TestPairingRequest) -> TestPairingRequest {
        expirePairingRequests()
        if let same = pendingPairings.first(where: { $0.hasSameDetails(as: candidate) }) { return same }
        let superseded = pendingPairings.filter {
            $0.deviceId == candidate.deviceId || (candidate.instanceId != nil && $0.instanceId == candidate.instanceId)
        }
        pendingPairings.removeAll { old in superseded.contains { $0.requestId == old.requestId } }
        for old in superseded { announcePairingResolution(old, decision: "rejected") }
        var request = candidate
        request.requestId = nextId("r")
        pendingPairings.append(request)
        broadcast(
            "device.pair.requested",
            [
                "requestId": .string(request.requestId), "deviceId": .string(request.deviceId),
                "publicKey": .string(request.publicKey), "role": .string(request.role),
                "scopes": .array(request.scopes.map(WireJSON.string)), "platform": .string(request.platform),
                "ts": .integer(nowMs),
            ], to: \.isOperator)
        emit(.pairingRequested(requestId: request.requestId, deviceId: request.deviceId, reason: request.reason))
        return request
    }

    func expirePairingRequests() {
        let now = nowMs
        let expired = pendingPairings.filter { now - $0.createdAtMs >= configuration.pairingRequestLifetimeMs }
        pendingPairings.removeAll { now - $0.createdAtMs >= configuration.pairingRequestLifetimeMs }
        for request in expired {
            emit(.pairingResolved(requestId: request.requestId, deviceId: request.deviceId, decision: "expired"))
        }
    }

    func announcePairingResolution(_ request: TestPairingRequest, decision: String) {
        broadcast(
            "device.pair.resolved",
            [
                "requestId": .string(request.requestId), "deviceId": .string(request.deviceId),
                "decision": .string(decision), "ts": .integer(nowMs),
            ], to: \.isOperator)
        emit(.pairingResolved(requestId: request.requestId, deviceId: request.deviceId, decision: decision))
    }

    /// Pairs the device of `request` (adds the role and scopes, pins the metadata); a bootstrap
    /// request also approves its declared capability surface.
    func approvePairing(_ request: TestPairingRequest) {
        var device =
            pairedDevices[request.deviceId].flatMap { $0.publicKey == request.publicKey ? $0 : nil }
            ?? PairedDevice(deviceId: request.deviceId, publicKey: request.publicKey, roles: [], scopes: [])
        device.roles.insert(request.role)
        device.scopes.formUnion(request.scopes)
        device.platform = request.platform
        device.deviceFamily = request.deviceFamily
        pairedDevices[request.deviceId] = device
        pendingPairings.removeAll { $0.requestId == request.requestId }
        if request.viaBootstrap {
            approvedSurfaces[request.deviceId] = ApprovedSurface(
                caps: Set(request.caps), commands: Set(request.commands))
        }
        announcePairingResolution(request, decision: "approved")
    }

    // MARK: Harness API

    /// Pending (unexpired) device pairing requests, oldest first.
    public var pendingPairingRequests: [TestPairingRequest] {
        expirePairingRequests()
        return pendingPairings
    }

    /// Approves a pending device pairing request (`openclaw devices approve <requestId>`).
    /// - Throws: ``TestGatewayError/unknownRequest(_:)`` for unknown or expired ids.
    public func approve(requestId: String) throws(TestGatewayError) {
        expirePairingRequests()
        guard let request = pendingPairings.first(where: { $0.requestId == requestId }) else {
            throw .unknownRequest(requestId)
        }
        approvePairing(request)
    }

    /// Rejects a pending device pairing request.
    /// - Throws: ``TestGatewayError/unknownRequest(_:)`` for unknown or expired ids.
    public func reject(requestId: String) throws(TestGatewayError) {
        expirePairingRequests()
        guard let request = pendingPairings.first(where: { $0.requestId == requestId }) else {
            throw .unknownRequest(requestId)
        }
        pendingPairings.removeAll { $0.requestId == requestId }
        announcePairingResolution(request, decision: "rejected")
    }

    /// Pairs a device directly (test setup): `publicKey` is the raw key as base64url; the
    /// approved surface defaults to nothing (commands stay filtered until approved).
    /// Returns the deviceId.
    @discardableResult
    public func pairDevice(
        publicKey: String, roles: Set<String> = ["node"], scopes: Set<String> = [],
        platform: String? = "linux", deviceFamily: String? = "Linux",
        approvedCaps: Set<String> = [], approvedCommands: Set<String> = []
    ) -> String {
        let raw = DeviceProofVerifier.rawPublicKey(publicKey) ?? []
        let deviceId = DeviceIdentity.deviceId(forPublicKey: raw)
        pairedDevices[deviceId] = PairedDevice(
            deviceId: deviceId, publicKey: Base64URL.encode(raw), roles: roles, scopes: scopes, platform: platform,
            deviceFamily: deviceFamily)
        if !approvedCaps.isEmpty || !approvedCommands.isEmpty {
            approvedSurfaces[deviceId] = ApprovedSurface(caps: approvedCaps, commands: approvedCommands)
        }
        return deviceId
    }

    /// Approved roles of a paired device (empty when unknown).
    public func pairedRoles(deviceId: String) -> Set<String> {
        pairedDevices[deviceId]?.roles ?? []
    }

    /// Unpairs a device: its tokens and surface are dropped and live sockets close with 4001.
    public func removeDevice(deviceId: String, reason: String = "device removed") {
        pairedDevices.removeValue(forKey: deviceId)
        approvedSurfaces.removeValue(forKey: deviceId)
        for key in deviceTokens.keys where key.hasPrefix("\(deviceId)|") { deviceTokens.removeValue(forKey: key) }
        for connection in connections.values where connection.session?.deviceId == deviceId {
            closeConnection(connection.id, code: 4001, reason: "client invalidated: \(reason)")
        }
    }
}

extension TestGatewaySession {
    /// True for `role:"operator"`.
    var isOperator: Bool { role == GatewayRole.operator.rawValue }
}
