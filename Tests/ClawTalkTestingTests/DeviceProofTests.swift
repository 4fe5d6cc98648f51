import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// Checklist items 9–13: the device-proof order of protocol.md §7.6 and the protocol.md §6.4 vectors.
@Suite(.timeLimit(.minutes(1))) struct DeviceProofTests {
    func expectProofFailure(
        _ result: Attempt, detail: String, reason: String, message: String
    ) async throws {
        #expect(result.code == "INVALID_REQUEST")
        #expect(result.detailCode == detail)
        #expect(result.details?["reason"]?.stringValue == reason)
        #expect(result.message == message)
        #expect(try await result.client.close() == (1008, message))
    }

    /// A proof that passed reaches pairing (the device is unknown).
    func expectProofPassed(_ result: Attempt) {
        #expect(result.detailCode == "PAIRING_REQUIRED")
    }

    @Test func deviceIdMustBeTheHashOfThePublicKey() async throws {  // 9
        let (gateway, _) = Fixture.gateway()
        let other = Fixture.identity(7).deviceId
        let result = try await attempt(gateway) { $0.setting(["device", "id"], to: .string(other)) }
        try await expectProofFailure(
            result, detail: "DEVICE_AUTH_DEVICE_ID_MISMATCH", reason: "device-id-mismatch",
            message: "device identity mismatch")
        let garbage = try await attempt(gateway) { $0.setting(["device", "publicKey"], to: "not*base64") }
        #expect(garbage.detailCode == "DEVICE_AUTH_DEVICE_ID_MISMATCH")
    }

    @Test(arguments: [(-120_001 as Int64, false), (120_001, false), (-120_000, true), (120_000, true)])
    func signedAtMustBeWithin120SecondsOfTheGatewayClock(offset: Int64, accepted: Bool) async throws {  // 10
        let (gateway, _) = Fixture.gateway()
        var builder = ConnectBuilder()
        builder.signedAt = Fixture.time + offset
        let result = try await attempt(gateway, builder)
        if accepted {
            expectProofPassed(result)
        } else {
            try await expectProofFailure(
                result, detail: "DEVICE_AUTH_SIGNATURE_EXPIRED", reason: "device-signature-stale",
                message: "device signature expired")
        }
    }

    @Test func aBlankNonceIsRequiredAndAForeignNonceMismatches() async throws {  // 11
        let (gateway, _) = Fixture.gateway()
        var blank = ConnectBuilder()
        blank.nonce = "   "
        try await expectProofFailure(
            try await attempt(gateway, blank), detail: "DEVICE_AUTH_NONCE_REQUIRED", reason: "device-nonce-missing",
            message: "device nonce required")
        var foreign = ConnectBuilder()
        foreign.nonce = "a-nonce-from-another-socket"
        try await expectProofFailure(
            try await attempt(gateway, foreign), detail: "DEVICE_AUTH_NONCE_MISMATCH", reason: "device-nonce-mismatch",
            message: "device nonce mismatch")
        // The gateway trims before comparing.
        let client = await WireClient.open(gateway)
        let challenge = try await client.challenge()
        var padded = ConnectBuilder()
        padded.nonce = "  \(challenge.nonce) "
        let response = try await client.call("connect", try padded.params(nonce: challenge.nonce, ts: challenge.ts))
        #expect(response["error"]?["details"]?["code"]?.stringValue == "PAIRING_REQUIRED")
    }

    @Test func aSignatureOverOtherFieldsIsInvalid() async throws {  // 12
        let (gateway, _) = Fixture.gateway()
        var builder = ConnectBuilder()
        builder.auth = .token("sent-token")
        builder.signedTokenOverride = "signed-token"
        try await expectProofFailure(
            try await attempt(gateway, builder), detail: "DEVICE_AUTH_SIGNATURE_INVALID", reason: "device-signature",
            message: "device signature invalid")
        var metadata = ConnectBuilder()
        let changedPlatform = try await attempt(gateway, metadata) { $0.setting(["client", "platform"], to: "darwin") }
        #expect(changedPlatform.detailCode == "DEVICE_AUTH_SIGNATURE_INVALID")
        metadata.signatureVersion = .v2
        let v2Ignores = try await attempt(gateway, metadata) { $0.setting(["client", "deviceFamily"], to: "Other") }
        expectProofPassed(v2Ignores)
    }

    @Test(arguments: [DeviceAuthVersion.v3, .v2])
    func v3AndV2SignaturesVerify(version: DeviceAuthVersion) async throws {  // 12
        let (gateway, _) = Fixture.gateway()
        var builder = ConnectBuilder()
        builder.signatureVersion = version
        let result = try await connected(gateway, builder)
        #expect(await gateway.session(connection: result.client.connection)?.signatureVersion == version)
    }

    struct Vector: Sendable {
        let token: String?
        let signature: String
        let version: DeviceAuthVersion
    }

    static let vectors: [Vector] = [
        Vector(
            token: "dtok_example_0123456789",
            signature: "8R3ijlauUVuOyKxe_-_E4JrCy1FNbLz8JQES3snC7-Zt9ci9BqkiV2sOHH1IDMWAhwwOtElUAS639R20VA17AA",
            version: .v3),
        Vector(
            token: "dtok_example_0123456789",
            signature: "H9yCsz9kbD668tKs-4IopW-MxwuZG1sK8jscyGBRkMTyuFXANigtoEGa0aBtJrD36cN2Tri6V8qlM9Omkq0bDg",
            version: .v2),
        Vector(
            token: nil,
            signature: "LoKceMqvDCg0NQTMtXgzXOEt-ILtnqz1xG69MRjTNCDO2-gN1WrwEnSs2TDZxwmnjUb1BKdF3y2OkALPkxEXBw",
            version: .v2),
        Vector(
            token: nil,
            signature: "8ZbNlyVaxGwrtrjDSSA9vbVIvR2qhaCflqzfzuNN-CY1cFqiAsmv9viG2hC7NH8iUzEIBCvkiWXDkPqwZyrCCQ",
            version: .v3),
    ]

    @Test(arguments: vectors)
    func theSpecVectorsAreAccepted(vector: Vector) async throws {  // 12 (protocol.md §6.4)
        let (gateway, _) = Fixture.gateway(nonce: Fixture.nonce)
        await gateway.pairDevice(publicKey: Fixture.identity.publicKeyBase64URL)
        if let token = vector.token {
            await gateway.issueDeviceToken(deviceId: Fixture.deviceId, role: "node", token: token)
        }
        var builder = ConnectBuilder()
        builder.auth = vector.token.map { .deviceToken($0) }
        let result = try await attempt(gateway, builder) { params in
            params.setting(["device", "signature"], to: .string(vector.signature))
        }
        #expect(result.ok)
        #expect(await gateway.session(connection: result.client.connection)?.signatureVersion == vector.version)
        #expect(Fixture.identity.deviceId == Fixture.deviceId)
    }

    @Test func standardBase64PublicKeysAreTolerated() async throws {
        let (gateway, _) = Fixture.gateway()
        let result = try await attempt(gateway) { params in
            params.setting(["device", "publicKey"], to: "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=")
        }
        expectProofPassed(result)
    }

    @Test func v2OnlyModeRejectsV3Signatures() async throws {  // 13
        let (gateway, _) = Fixture.gateway { $0.signaturePolicy = .v2Only }
        await gateway.pairDevice(publicKey: Fixture.identity.publicKeyBase64URL)
        let v3 = try await attempt(gateway)
        #expect(v3.detailCode == "DEVICE_AUTH_SIGNATURE_INVALID")
        #expect(ConnectRejection(try ErrorShape(json: try #require(v3.error))).detail == .deviceAuthSignatureInvalid)
        var builder = ConnectBuilder()
        builder.signatureVersion = .v2
        #expect(try await attempt(gateway, builder).ok)
    }
}
