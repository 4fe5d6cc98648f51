import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// Checklist items 17–21 and 39: device pairing (protocol.md §8).
@Suite(.timeLimit(.minutes(1))) struct PairingTests {
    @Test func anUnknownDeviceGetsTheExactPairingRequiredResponse() async throws {  // 17
        let (gateway, _) = Fixture.gateway()
        let result = try await attempt(gateway)
        let requestId = try #require(result.details?["requestId"]?.stringValue)
        let expected: WireJSON = [
            "code": "NOT_PAIRED", "message": "pairing required: device is not approved yet",
            "details": [
                "code": "PAIRING_REQUIRED", "reason": "not-paired", "requestId": .string(requestId),
                "remediationHint": "Approve this device from the pending pairing requests.",
                "deviceId": .string(Fixture.deviceId), "requestedRole": "node", "requestedScopes": [],
            ],
        ]
        #expect(result.error == expected)
        #expect(ConnectRejection.isValidRequestId(requestId))
        let close = try await result.client.close()
        #expect(close.code == 1008)
        #expect(close.reason == "pairing required: device is not approved yet (requestId: \(requestId))")
        let rejection = ConnectRejection(try ErrorShape(json: try #require(result.error)))
        #expect(rejection.pausesReconnect)
        #expect(rejection.approvalCommand == "openclaw devices approve \(requestId)")
        #expect(await gateway.pendingPairingRequests.map(\.requestId) == [requestId])
    }

    @Test func aPendingBootstrapNodeConnectCarriesRetryHints() async throws {  // 18
        let (gateway, _) = Fixture.gateway { $0.bootstrapApprovesNodeProfile = false }
        var builder = ConnectBuilder()
        builder.auth = .bootstrapToken(await gateway.mintBootstrapToken())
        let pending = try await attempt(gateway, builder)
        #expect(pending.details?["recommendedNextStep"]?.stringValue == "wait_then_retry")
        #expect(pending.details?["retryable"]?.boolValue == true)
        #expect(pending.details?["pauseReconnect"]?.boolValue == false)
        #expect(!ConnectRejection(try ErrorShape(json: try #require(pending.error))).pausesReconnect)

        var plain = ConnectBuilder()
        plain.identity = Fixture.identity(4)
        let plainResult = try await attempt(gateway, plain)
        #expect(plainResult.detailCode == "PAIRING_REQUIRED")
        #expect(plainResult.details?["recommendedNextStep"] == nil)
        #expect(plainResult.details?["retryable"] == nil)
        #expect(plainResult.details?["pauseReconnect"] == nil)
    }

    @Test func identicalDetailsReuseTheRequestAndItExpiresAfterFiveMinutes() async throws {  // 19
        let (gateway, clock) = Fixture.gateway()
        let first = try #require(try await attempt(gateway).details?["requestId"]?.stringValue)
        clock.advance(byMs: 60_000)
        let again = try #require(try await attempt(gateway).details?["requestId"]?.stringValue)
        #expect(again == first)
        clock.advance(byMs: 240_000)
        let renewed = try #require(try await attempt(gateway).details?["requestId"]?.stringValue)
        #expect(renewed != first)
        await #expect(throws: TestGatewayError.unknownRequest(first)) { try await gateway.approve(requestId: first) }
        let expired = try await gateway.waitForEvent { event in
            if case .pairingResolved(first, _, "expired") = event { return true }
            return false
        }
        #expect(expired == .pairingResolved(requestId: first, deviceId: Fixture.deviceId, decision: "expired"))
    }

    @Test func aNewKeyForTheSameInstallSupersedesThePendingRequest() async throws {  // 19
        let (gateway, _) = Fixture.gateway()
        let watcher = try await connected(gateway, ConnectBuilder.operator(Fixture.identity(40)))
        var oldKey = ConnectBuilder()
        oldKey.instanceId = "8b1f2c4e-0000-4000-8000-000000000001"
        let old = try #require(try await attempt(gateway, oldKey).details?["requestId"]?.stringValue)
        let requested = try await watcher.client.event("device.pair.requested")
        #expect(requested["payload"]?["requestId"]?.stringValue == old)
        var newKey = oldKey
        newKey.identity = Fixture.identity(41)
        let new = try #require(try await attempt(gateway, newKey).details?["requestId"]?.stringValue)
        #expect(new != old)
        let resolved = try await watcher.client.event("device.pair.resolved")
        #expect(resolved["payload"]?["requestId"]?.stringValue == old)
        #expect(resolved["payload"]?["deviceId"]?.stringValue == Fixture.deviceId)
        #expect(resolved["payload"]?["decision"]?.stringValue == "rejected")
        #expect(resolved["payload"]?["ts"]?.int64Value == Fixture.time)
        #expect(await gateway.pendingPairingRequests.map(\.requestId) == [new])
    }

    @Test func approvalLetsTheNextConnectSucceedWithANodeToken() async throws {  // 20
        let (gateway, _) = Fixture.gateway()
        let requestId = try #require(try await attempt(gateway).details?["requestId"]?.stringValue)
        try await gateway.approve(requestId: requestId)
        let result = try await attempt(gateway)
        #expect(result.ok)
        let auth = try #require(result.hello?["auth"])
        #expect(auth["role"] == "node")
        #expect(auth["scopes"] == [])
        #expect(auth["issuedAtMs"]?.int64Value == Fixture.time)
        let token = try #require(auth["deviceToken"]?.stringValue)
        #expect(await gateway.deviceToken(deviceId: Fixture.deviceId, role: "node") == token)
        // A plain device approval does not approve the command surface.
        #expect(await gateway.session(connection: result.client.connection)?.effectiveCommands == [])
        #expect(await gateway.pendingCapabilityRequests.count == 1)
    }

    @Test func bootstrapPairingApprovesDeviceAndSurfaceAndRevokesTheToken() async throws {  // 20
        let (gateway, _) = Fixture.gateway()
        let token = await gateway.mintBootstrapToken()
        var builder = ConnectBuilder()
        builder.auth = .bootstrapToken(token)
        let result = try await attempt(gateway, builder)
        #expect(result.ok)
        let session = await gateway.session(connection: result.client.connection)
        #expect(session?.authMethod == .bootstrapToken)
        #expect(session?.effectiveCommands == Set(Fixture.talkCommands))
        #expect(await gateway.bootstrapTokenIsLive(token) == false)
        #expect(try await attempt(gateway, builder).detailCode == "AUTH_BOOTSTRAP_TOKEN_INVALID")
        // The issued node token works afterwards.
        builder.auth = .deviceToken(try #require(result.hello?["auth"]?["deviceToken"]?.stringValue))
        #expect(try await attempt(gateway, builder).ok)
    }

    @Test func changedPinnedMetadataNeedsReapproval() async throws {  // 21
        let (gateway, _) = Fixture.gateway()
        _ = try await connected(gateway)
        var changed = ConnectBuilder()
        changed.deviceFamily = "Raspberry Pi"
        let result = try await attempt(gateway, changed)
        #expect(result.detailCode == "PAIRING_REQUIRED")
        #expect(result.details?["reason"]?.stringValue == "metadata-upgrade")
        #expect(result.message == "pairing required: device identity changed and must be re-approved")
        #expect(result.details?["approvedRoles"] == ["node"])
        try await gateway.approve(requestId: try #require(result.details?["requestId"]?.stringValue))
        #expect(try await attempt(gateway, changed).ok)
        var platform = changed
        platform.platform = "darwin"
        #expect(try await attempt(gateway, platform).details?["reason"]?.stringValue == "metadata-upgrade")
        // Case and surrounding whitespace normalize away (as the gateway compares).
        var spelled = changed
        spelled.platform = " LINUX "
        spelled.deviceFamily = "raspberry pi"
        #expect(try await attempt(gateway, spelled).ok)
    }

    @Test func anOperatorOnANodeOnlyDeviceNeedsARoleUpgrade() async throws {  // 39
        let (gateway, _) = Fixture.gateway { $0.auth = .token("shared") }
        var node = ConnectBuilder()
        node.auth = .token("shared")
        let nodeHello = try await connected(gateway, node)
        let nodeToken = try #require(nodeHello.hello?["auth"]?["deviceToken"]?.stringValue)
        let operatorBuilder = ConnectBuilder.operator(auth: .token("shared"))
        let upgrade = try await attempt(gateway, operatorBuilder)
        #expect(upgrade.detailCode == "PAIRING_REQUIRED")
        #expect(upgrade.details?["reason"]?.stringValue == "role-upgrade")
        #expect(upgrade.details?["requestedRole"]?.stringValue == "operator")
        #expect(upgrade.details?["requestedScopes"] == ["operator.read", "operator.write"])
        #expect(upgrade.details?["approvedRoles"] == ["node"])
        try await gateway.approve(requestId: try #require(upgrade.details?["requestId"]?.stringValue))
        let op = try await attempt(gateway, operatorBuilder)
        #expect(op.ok)
        let operatorToken = try #require(op.hello?["auth"]?["deviceToken"]?.stringValue)
        #expect(operatorToken != nodeToken)
        #expect(op.hello?["auth"]?["role"] == "operator")
        #expect(op.hello?["auth"]?["scopes"] == ["operator.read", "operator.write"])
        #expect(await gateway.pairedRoles(deviceId: Fixture.deviceId) == ["node", "operator"])
        // The operator token authenticates the operator role without the shared secret.
        #expect(try await attempt(gateway, ConnectBuilder.operator(auth: .deviceToken(operatorToken))).ok)
    }

    @Test func loopbackAutoApprovalCoversNewDevicesAndRoleUpgradesButNotMetadata() async throws {  // 8.3
        let (gateway, _) = Fixture.gateway { $0.autoApproveLoopback = true }
        #expect(try await attempt(gateway).ok)
        #expect(try await attempt(gateway, ConnectBuilder.operator()).ok)
        var changed = ConnectBuilder()
        changed.platform = "darwin"
        #expect(try await attempt(gateway, changed).details?["reason"]?.stringValue == "metadata-upgrade")
    }
}
