import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// Checklist items 1–8, 22, 24 and 34 (protocol.md §7, §18).
@Suite(.timeLimit(.minutes(1))) struct HandshakeTests {
    @Test func challengeComesFirstWithAFreshNonceAndTheGatewayClock() async throws {  // 1
        let (gateway, clock) = Fixture.gateway()
        let first = await WireClient.open(gateway)
        let a = try await first.challenge()
        clock.advance(byMs: 5)
        let second = await WireClient.open(gateway)
        let b = try await second.challenge()
        #expect(!a.nonce.isEmpty && !b.nonce.isEmpty)
        #expect(a.nonce != b.nonce)
        #expect(a.ts == Fixture.time)
        #expect(b.ts == Fixture.time + 5)
        let sent = await gateway.recordedFrames(connection: first.connection)
        #expect(sent.first?.direction == .sent)
        #expect(sent.first?.event == "connect.challenge")
        #expect(sent.first?.json?["seq"] == nil)
    }

    @Test func aFirstRequestOtherThanConnectIsRejectedAndClosed() async throws {  // 2
        let (gateway, _) = Fixture.gateway()
        let client = await WireClient.open(gateway)
        _ = try await client.challenge()
        let response = try await client.response(try client.request("node.event", ["event": "x"]))
        #expect(response["ok"]?.boolValue == false)
        #expect(response["error"]?["code"]?.stringValue == "INVALID_REQUEST")
        #expect(response["error"]?["message"]?.stringValue == "invalid handshake: first request must be connect")
        let close = try await client.close()
        #expect(close.code == 1008)
        #expect(close.reason == "invalid handshake: first request must be connect")
    }

    @Test func aFirstFrameThatIsNoRequestIsClosedWithoutAnAnswer() async throws {  // 2 (non-request frame)
        let (gateway, _) = Fixture.gateway()
        let client = await WireClient.open(gateway)
        _ = try await client.challenge()
        try client.send(["type": "event", "event": "tick"])
        #expect(try await client.next() == .closed(code: 1008, reason: "invalid request frame"))
    }

    @Test(arguments: [
        (["params"], "transports", "at root: unexpected property 'transports'"),
        (["params", "client"], "buildId", "at /client: unexpected property 'buildId'"),
        (["params", "device"], "extra", "at /device: unexpected property 'extra'"),
        (["params", "auth"], "sessionToken", "at /auth: unexpected property 'sessionToken'"),
    ])
    func unknownKeysAtAnyLevelAreInvalidParams(path: [String], key: String, expected: String) async throws {  // 3
        let (gateway, _) = Fixture.gateway()
        var builder = ConnectBuilder()
        builder.auth = .token("t")
        let result = try await attempt(gateway, builder) { params in
            params.setting(Array(path.dropFirst()) + [key], to: "x")
        }
        #expect(result.code == "INVALID_REQUEST")
        #expect(result.message == "invalid connect params: \(expected)")
        #expect(try await result.client.close() == (1008, "invalid connect params: \(expected)"))
    }

    @Test(arguments: [
        (["client", "id"], "Node-Host"), (["client", "id"], "ios-node"), (["client", "mode"], "Node"),
        (["client", "mode"], "client"),
    ])
    func clientIdAndModeMustBeInTheCaseSensitiveEnums(path: [String], value: String) async throws {  // 4
        let (gateway, _) = Fixture.gateway()
        let result = try await attempt(gateway) { $0.setting(path, to: .string(value)) }
        #expect(result.code == "INVALID_REQUEST")
        #expect(
            result.message
                == "invalid connect params: at /\(path.joined(separator: "/")): must be equal to one of the allowed values"
        )
        #expect(try await result.client.close().code == 1008)
    }

    struct MissingField: Sendable {
        let path: [String]
        let value: WireJSON?
        let expected: String
    }

    static let missingFields: [MissingField] = [
        MissingField(
            path: ["client", "version"], value: nil, expected: "at /client: must have required property 'version'"),
        MissingField(
            path: ["client", "version"], value: .string(""),
            expected: "at /client/version: must NOT have fewer than 1 characters"),
        MissingField(
            path: ["client", "platform"], value: nil, expected: "at /client: must have required property 'platform'"),
        MissingField(
            path: ["client", "platform"], value: .string(""),
            expected: "at /client/platform: must NOT have fewer than 1 characters"),
        MissingField(path: ["device", "id"], value: nil, expected: "at /device: must have required property 'id'"),
        MissingField(
            path: ["device", "publicKey"], value: .string(""),
            expected: "at /device/publicKey: must NOT have fewer than 1 characters"),
        MissingField(
            path: ["device", "signature"], value: nil, expected: "at /device: must have required property 'signature'"),
        MissingField(
            path: ["device", "signedAt"], value: .string("1754640000000"),
            expected: "at /device/signedAt: must be integer"),
        MissingField(
            path: ["device", "nonce"], value: .string(""),
            expected: "at /device/nonce: must NOT have fewer than 1 characters"),
        MissingField(path: ["minProtocol"], value: nil, expected: "at root: must have required property 'minProtocol'"),
        MissingField(path: ["maxProtocol"], value: .integer(0), expected: "at /maxProtocol: must be >= 1"),
    ]

    @Test(arguments: missingFields)
    func requiredFieldsMustBePresentAndNonEmpty(row: MissingField) async throws {  // 5
        let (gateway, _) = Fixture.gateway()
        let result = try await attempt(gateway) { $0.setting(row.path, to: row.value) }
        #expect(result.message == "invalid connect params: \(row.expected)")
        #expect(try await result.client.close().code == 1008)
    }
    struct ProtocolRow: Sendable {
        let min: Int
        let max: Int
        let role: String
        let mode: String
        let accepted: Bool
    }

    static let protocolRows: [ProtocolRow] = [
        ProtocolRow(min: 3, max: 4, role: "node", mode: "node", accepted: true),
        ProtocolRow(min: 4, max: 4, role: "node", mode: "node", accepted: true),
        ProtocolRow(min: 4, max: 5, role: "operator", mode: "backend", accepted: true),
        ProtocolRow(min: 3, max: 3, role: "node", mode: "node", accepted: true),
        ProtocolRow(min: 3, max: 3, role: "operator", mode: "backend", accepted: false),
        ProtocolRow(min: 3, max: 3, role: "node", mode: "backend", accepted: false),
        ProtocolRow(min: 2, max: 2, role: "node", mode: "node", accepted: false),
        ProtocolRow(min: 5, max: 6, role: "node", mode: "node", accepted: false),
    ]

    @Test(arguments: protocolRows)
    func protocolRangeRules(row: ProtocolRow) async throws {  // 6
        let (min, max, role, mode, accepted) = (row.min, row.max, row.role, row.mode, row.accepted)
        let (gateway, _) = Fixture.gateway()
        var builder = role == "node" ? ConnectBuilder() : ConnectBuilder.operator()
        builder.clientMode = mode
        builder.minProtocol = min
        builder.maxProtocol = max
        await gateway.pairDevice(
            publicKey: builder.identity.publicKeyBase64URL, roles: [role], scopes: Set(builder.scopes))
        let result = try await attempt(gateway, builder)
        #expect(result.ok == accepted)
        if accepted {
            #expect(result.hello?["protocol"]?.intValue == 4)
        } else {
            #expect(result.code == "INVALID_REQUEST")
            #expect(result.message == "protocol mismatch")
            #expect(result.detailCode == "PROTOCOL_MISMATCH")
            #expect(result.details?["expectedProtocol"]?.intValue == 4)
            #expect(result.details?["clientMinProtocol"]?.intValue == min)
            #expect(result.details?["clientMaxProtocol"]?.intValue == max)
            #expect(try await result.client.close() == (1002, "protocol mismatch"))
        }
    }

    @Test func aPreHandshakeFrameOver64KiBClosesWith1009() async throws {  // 7
        let (gateway, _) = Fixture.gateway()
        let client = await WireClient.open(gateway)
        let challenge = try await client.challenge()
        let params = try ConnectBuilder().params(nonce: challenge.nonce, ts: challenge.ts)
            .setting(["locale"], to: .string(String(repeating: "x", count: 65_536)))
        try client.request("connect", params)
        #expect(try await client.next() == .closed(code: 1009, reason: "preauth payload too large"))
        // Just below the limit is read (and answered).
        let small = await WireClient.open(gateway)
        let smallChallenge = try await small.challenge()
        var frame = RequestFrame(
            method: "connect", params: try ConnectBuilder().params(nonce: smallChallenge.nonce, ts: smallChallenge.ts))
        let base = frame.encodedText().utf8.count
        frame.params = frame.params?.setting(["locale"], to: .string(String(repeating: "x", count: 65_536 - base - 12)))
        #expect(frame.encodedText().utf8.count <= 65_536)
        try small.send(frame.wireJSON)
        let response = try await small.response(frame.id)
        #expect(response["error"]?["details"]?["code"]?.stringValue == "PAIRING_REQUIRED")
    }

    @Test func afterHelloTheLimitIsPolicyMaxPayload() async throws {  // protocol.md §4.2
        let (gateway, _) = Fixture.gateway { config in
            config.policy = HelloOk.Policy(maxPayload: 100_000, maxBufferedBytes: 200_000, tickIntervalMs: 30_000)
        }
        let node = try await connected(gateway)
        let big = String(repeating: "x", count: 80_000)
        let accepted = try await node.client.call("node.event", ["event": "x", "payloadJSON": .string("\"\(big)\"")])
        #expect(accepted["payload"]?["handled"] == false)
        try node.client.request("node.event", ["event": "x", "payloadJSON": .string(big + big)])
        #expect(try await node.client.close() == (1009, "payload too large"))
    }

    @Test func aNodeWithoutDeviceIsRejected() async throws {  // 8
        let (gateway, _) = Fixture.gateway()
        let result = try await attempt(gateway) { $0.setting(["device"], to: nil) }
        #expect(result.code == "NOT_PAIRED")
        #expect(result.detailCode == "DEVICE_IDENTITY_REQUIRED")
        #expect(try await result.client.close() == (1008, "device identity required"))
    }

    @Test func anUnknownRoleIsRejected() async throws {
        let (gateway, _) = Fixture.gateway()
        var builder = ConnectBuilder()
        builder.role = "admin"
        let result = try await attempt(gateway, builder)
        #expect(result.message == "invalid role")
        #expect(try await result.client.close().code == 1008)
    }

    @Test func helloOkCarriesEveryRequiredFieldAndNoNodeId() async throws {  // 22
        let (gateway, _) = Fixture.gateway { config in
            config.policy = HelloOk.Policy(maxPayload: 524_288, maxBufferedBytes: 1_572_864, tickIntervalMs: 15_000)
            config.serverVersion = "2026.6.9"
        }
        let result = try await connected(gateway)
        let hello = try #require(result.hello)
        #expect(hello["type"]?.stringValue == "hello-ok")
        #expect(hello["protocol"]?.intValue == 4)
        #expect(hello["server"]?["version"]?.stringValue == "2026.6.9")
        #expect(hello["server"]?["connId"]?.nonEmptyStringValue != nil)
        #expect(hello["features"]?["methods"]?.stringArrayValue?.contains("talk.speak") == true)
        #expect(hello["features"]?["events"]?.stringArrayValue?.contains("tick") == true)
        #expect(hello["snapshot"]?["presence"]?.arrayValue != nil)
        #expect(hello["snapshot"]?["stateVersion"] != nil)
        #expect(hello["auth"]?["role"]?.stringValue == "node")
        #expect(hello["auth"]?["scopes"] == [])
        #expect(hello["auth"]?["deviceToken"]?.nonEmptyStringValue != nil)
        #expect(hello["auth"]?["issuedAtMs"]?.int64Value == Fixture.time)
        #expect(hello["policy"] == ["maxPayload": 524_288, "maxBufferedBytes": 1_572_864, "tickIntervalMs": 15_000])
        #expect(hello["nodeId"] == nil)
        let decoded = try HelloOk(json: hello)
        #expect(decoded.policy.tickIntervalMs == 15_000)
    }

    @Test func aSecondConnectOnAnEstablishedSocketIsRejected() async throws {  // 24
        let (gateway, _) = Fixture.gateway()
        let result = try await connected(gateway)
        let again = try await result.client.call("connect", try ConnectBuilder().params(nonce: "n", ts: Fixture.time))
        #expect(again["ok"]?.boolValue == false)
        #expect(again["error"]?["code"]?.stringValue == "INVALID_REQUEST")
        #expect(await gateway.session(connection: result.client.connection) != nil)
    }

    @Test func duringStartupConnectsGetUnavailableAndClose1013() async throws {  // 34
        let (gateway, _) = Fixture.gateway { $0.startingUp = true }
        let result = try await attempt(gateway)
        #expect(result.code == "UNAVAILABLE")
        #expect(result.error?["retryable"]?.boolValue == true)
        #expect(result.error?["retryAfterMs"]?.intValue == 500)
        #expect(result.details?["reason"]?.stringValue == "startup-sidecars")
        #expect(try await result.client.close() == (1013, "gateway starting"))
        let rejection = ConnectRejection(try ErrorShape(json: try #require(result.error)))
        #expect(rejection.isStartingUp)
        await gateway.configure { $0.startingUp = false }
        await gateway.pairDevice(publicKey: Fixture.identity.publicKeyBase64URL)
        #expect(try await attempt(gateway).ok)
    }
}
