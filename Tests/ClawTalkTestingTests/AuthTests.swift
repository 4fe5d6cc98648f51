import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// Checklist items 14–16, 35 and 42: shared secrets, device tokens, bootstrap tokens,
/// revocation and rate limiting (protocol.md §7.4, §11, §15).
@Suite(.timeLimit(.minutes(1))) struct AuthTests {
    @Test func aWrongSharedTokenIsATokenMismatchWithRetryHints() async throws {  // 14
        let (gateway, _) = Fixture.gateway { $0.auth = .token("right") }
        await gateway.pairDevice(publicKey: Fixture.identity.publicKeyBase64URL)
        var builder = ConnectBuilder()
        builder.auth = .token("wrong")
        let result = try await attempt(gateway, builder)
        #expect(result.code == "INVALID_REQUEST")
        #expect(result.detailCode == "AUTH_TOKEN_MISMATCH")
        #expect(result.details?["canRetryWithDeviceToken"]?.boolValue == true)
        #expect(result.details?["recommendedNextStep"]?.stringValue == "retry_with_device_token")
        #expect(try await result.client.close().code == 1008)
        builder.auth = .token("right")
        #expect(try await attempt(gateway, builder).ok)
    }

    @Test func aMissingSharedTokenOrPasswordIsReported() async throws {
        let (gateway, _) = Fixture.gateway { $0.auth = .token("right") }
        let missing = try await attempt(gateway)
        #expect(missing.detailCode == "AUTH_TOKEN_MISSING")
        #expect(missing.details?["recommendedNextStep"]?.stringValue == "update_auth_configuration")
        #expect(missing.details?["canRetryWithDeviceToken"]?.boolValue == false)
        await gateway.configure { $0.auth = .password("pw") }
        var builder = ConnectBuilder()
        builder.auth = .password("nope")
        #expect(try await attempt(gateway, builder).detailCode == "AUTH_PASSWORD_MISMATCH")
    }

    @Test func deviceTokensAreCheckedPerDeviceAndRole() async throws {  // 15
        let (gateway, _) = Fixture.gateway { $0.auth = .token("shared") }
        await gateway.pairDevice(publicKey: Fixture.identity.publicKeyBase64URL)
        let issued = await gateway.issueDeviceToken(deviceId: Fixture.deviceId, role: "node")
        var builder = ConnectBuilder()
        builder.auth = .deviceToken("dtok_wrong")
        let wrong = try await attempt(gateway, builder)
        #expect(wrong.detailCode == "AUTH_DEVICE_TOKEN_MISMATCH")
        #expect(wrong.details?["recommendedNextStep"]?.stringValue == "update_auth_credentials")
        #expect(try await wrong.client.close().code == 1008)
        builder.auth = .deviceToken(issued)
        let right = try await attempt(gateway, builder)
        #expect(right.ok)
        #expect(await gateway.session(connection: right.client.connection)?.authMethod == .deviceToken)
        // The node token is not an operator token.
        var asOperator = ConnectBuilder.operator(auth: .deviceToken(issued))
        asOperator.scopes = []
        #expect(try await attempt(gateway, asOperator).detailCode == "AUTH_DEVICE_TOKEN_MISMATCH")
        // A device token sent as auth.token also works (the device-token candidate of protocol.md §7.4).
        builder.auth = .token(issued)
        #expect(try await attempt(gateway, builder).ok)
    }

    @Test func bootstrapTokensAreSingleUseBoundAndExpire() async throws {  // 16, 20
        let (gateway, clock) = Fixture.gateway()
        let token = await gateway.mintBootstrapToken()
        var builder = ConnectBuilder()
        builder.auth = .bootstrapToken(token)
        // Another device presents it first: the token binds to that device...
        var thief = builder
        thief.identity = Fixture.identity(9)
        let first = try await attempt(gateway, thief)
        #expect(first.ok)
        #expect(await gateway.bootstrapTokenIsLive(token) == false)
        // ...so it is invalid for everyone else afterwards (and revoked after that hello-ok).
        let second = try await attempt(gateway, builder)
        #expect(second.detailCode == "AUTH_BOOTSTRAP_TOKEN_INVALID")
        #expect(try await second.client.close().code == 1008)

        let fresh = await gateway.mintBootstrapToken()
        builder.auth = .bootstrapToken(fresh)
        clock.advance(byMs: 600_000)
        #expect(try await attempt(gateway, builder).detailCode == "AUTH_BOOTSTRAP_TOKEN_INVALID")
    }

    @Test func aBootstrapTokenIsBoundToTheFirstDeviceEvenWhilePending() async throws {  // 16
        let (gateway, _) = Fixture.gateway { $0.bootstrapApprovesNodeProfile = false }
        let token = await gateway.mintBootstrapToken()
        var builder = ConnectBuilder()
        builder.auth = .bootstrapToken(token)
        #expect(try await attempt(gateway, builder).detailCode == "PAIRING_REQUIRED")
        var other = builder
        other.identity = Fixture.identity(3)
        #expect(try await attempt(gateway, other).detailCode == "AUTH_BOOTSTRAP_TOKEN_INVALID")
        #expect(try await attempt(gateway, builder).detailCode == "PAIRING_REQUIRED")
    }

    @Test func revocationClosesWith4001AndTheOldTokenThenMismatches() async throws {  // 35
        let (gateway, _) = Fixture.gateway()
        let first = try await connected(gateway)
        let token = try #require(first.hello?["auth"]?["deviceToken"]?.stringValue)
        await gateway.revokeDeviceToken(deviceId: Fixture.deviceId, role: "node")
        let close = try await first.client.close()
        #expect(close.code == 4001)
        #expect(close.reason.hasPrefix("client invalidated: "))
        var builder = ConnectBuilder()
        builder.auth = .deviceToken(token)
        let retry = try await attempt(gateway, builder)
        #expect(retry.detailCode == "AUTH_DEVICE_TOKEN_MISMATCH")
        let rejection = ConnectRejection(try ErrorShape(json: try #require(retry.error)))
        #expect(rejection.pausesReconnect)
        // Falling back to no credential (auth none) gets a fresh, different token.
        let fallback = try await attempt(gateway)
        #expect(fallback.ok)
        #expect(fallback.hello?["auth"]?["deviceToken"]?.stringValue != token)
    }

    @Test func rateLimitModeAnswersAuthRateLimited() async throws {  // 42
        let (gateway, _) = Fixture.gateway { $0.rateLimitRetryAfterMs = 60_000 }
        await gateway.pairDevice(publicKey: Fixture.identity.publicKeyBase64URL)
        let result = try await attempt(gateway)
        #expect(result.detailCode == "AUTH_RATE_LIMITED")
        #expect(result.details?["recommendedNextStep"]?.stringValue == "wait_then_retry")
        #expect(result.error?["retryAfterMs"]?.intValue == 60_000)
        #expect(try await result.client.close().code == 1008)
        let rejection = ConnectRejection(try ErrorShape(json: try #require(result.error)))
        #expect(rejection.isRateLimited)
        #expect(!rejection.pausesReconnect)
    }
}
