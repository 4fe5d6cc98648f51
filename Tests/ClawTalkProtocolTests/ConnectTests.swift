import Foundation
import Testing

@testable import ClawTalkProtocol

@Suite("Connect")
struct ConnectTests {
    /// protocol.md §7.2 keys clawtalk may send, per level (`auth` restricted to the four credentials).
    static let allowedParams: Set<String> = [
        "minProtocol", "maxProtocol", "client", "caps", "commands", "permissions", "role", "scopes", "device", "auth",
        "locale", "userAgent",
    ]
    static let allowedClient: Set<String> = [
        "id", "displayName", "version", "platform", "deviceFamily", "modelIdentifier", "mode", "instanceId",
    ]
    static let allowedDevice: Set<String> = ["id", "publicKey", "signature", "signedAt", "nonce"]
    static let allowedAuth: Set<String> = ["token", "bootstrapToken", "deviceToken", "password"]
    static let allowedPermissions: Set<String> = ["microphone", "speechRecognition"]

    static func goldenNodeParams() -> ConnectParams {
        ConnectParams.node(
            version: "0.1.0", displayName: "Kitchen Pi", instanceId: "8b1f2c4e-6a3d-4f1b-9c2e-5d7a8b9c0d1e",
            caps: [.talk, .voiceWake], permissions: [.microphone: true, .speechRecognition: true],
            auth: .deviceToken(Vector.deviceToken),
            device: DeviceProof(
                id: Vector.deviceId, publicKey: Vector.publicKey, signature: Vector.signatureV3,
                signedAt: Vector.signedAt,
                nonce: Vector.nonce),
            locale: "en-US")
    }

    /// Fails on any key outside the allowed set, at every level of connect params.
    static func checkClosedKeySet(_ params: WireJSON, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let object = try #require(params.objectValue, sourceLocation: sourceLocation)
        #expect(
            Set(object.keys).isSubset(of: allowedParams),
            "extra params keys: \(Set(object.keys).subtracting(allowedParams))", sourceLocation: sourceLocation)
        let client = try #require(object["client"]?.objectValue, sourceLocation: sourceLocation)
        #expect(Set(client.keys).isSubset(of: allowedClient), "extra client keys", sourceLocation: sourceLocation)
        if let device = object["device"] {
            #expect(
                Set(try #require(device.objectValue).keys) == allowedDevice, "device keys",
                sourceLocation: sourceLocation)
        }
        if let auth = object["auth"] {
            let keys = Set(try #require(auth.objectValue).keys)
            #expect(keys.isSubset(of: allowedAuth), "extra auth keys", sourceLocation: sourceLocation)
            #expect(keys.count == 1, "exactly one credential", sourceLocation: sourceLocation)
        }
        if let permissions = object["permissions"] {
            #expect(
                Set(try #require(permissions.objectValue).keys).isSubset(of: allowedPermissions),
                sourceLocation: sourceLocation)
        }
        #expect(!params.containsNull, "no nulls", sourceLocation: sourceLocation)
        #expect(!params.encodedString().contains(#":"""#), "no empty strings", sourceLocation: sourceLocation)
    }

    @Test("golden: protocol.md §7.3 node connect encodes to the committed frame")
    func goldenNodeConnect() throws {
        let text = try Self.goldenNodeParams().encodedRequest(id: "5d0c6a1e-2b3c-4d5e-8f6a-7b8c9d0e1f2a")
        let encoded = try WireJSON(parsing: text)
        let golden = try Fixture.json("connect-node")
        #expect(encoded == golden)
        // Same key paths at every level, both directions.
        #expect(encoded.keyPaths() == golden.keyPaths())
        try Self.checkClosedKeySet(try #require(encoded["params"]))
        #expect(try #require(encoded["params"]?["scopes"]?.arrayValue).isEmpty)
    }

    @Test("golden: protocol.md §14 operator connect encodes to the committed frame")
    func goldenOperatorConnect() throws {
        let params = ConnectParams.operator(
            version: "0.1.0", auth: .token("shared-secret-example"),
            device: DeviceProof(
                id: Vector.deviceId, publicKey: Vector.publicKey, signature: "c2lnbmF0dXJlLXBsYWNlaG9sZGVy",
                signedAt: Vector.signedAt, nonce: Vector.nonce))
        let encoded = try WireJSON(parsing: params.encodedRequest(id: "0b6c2f4e-8d1a-4c3b-9e5f-6a7b8c9d0e1f"))
        #expect(encoded == (try Fixture.json("connect-operator")))
        let wireParams = try #require(encoded["params"])
        try Self.checkClosedKeySet(wireParams)
        #expect(wireParams["caps"] == nil)
        #expect(wireParams["commands"] == nil)
        #expect(wireParams["permissions"] == nil)
        #expect(wireParams["scopes"] == ["operator.read", "operator.write"])
    }

    @Test("the cli/cli operator fallback pair")
    func operatorFallback() throws {
        let params = ConnectParams.operator(version: "1", clientPair: .cli)
        #expect(params.client.id == .cli)
        #expect(params.client.mode == .cli)
        let wire = try WireJSON(encoding: params)
        #expect(wire["client"]?["id"] == "cli")
        #expect(wire["client"]?["mode"] == "cli")
    }

    @Test("every stored property of the connect types is an allowed wire key")
    func storedPropertiesAreClosed() {
        let params = Self.goldenNodeParams()
        let paramLabels = Set(Mirror(reflecting: params).children.compactMap(\.label))
        #expect(paramLabels == Self.allowedParams)
        #expect(Set(Mirror(reflecting: params.client).children.compactMap(\.label)) == Self.allowedClient)
        #expect(Set(Mirror(reflecting: params.device!).children.compactMap(\.label)) == Self.allowedDevice)
        #expect(Set(Mirror(reflecting: ConnectAuth.token("x")).children.compactMap(\.label)) == Self.allowedAuth)
    }

    @Test("the key-set check catches an extra key")
    func keySetCheckFails() throws {
        var params = try #require(try WireJSON(encoding: Self.goldenNodeParams()).objectValue)
        params["pathEnv"] = "/usr/bin"
        let keys = Set(params.keys)
        #expect(!keys.isSubset(of: Self.allowedParams))
        var client = try #require(params["client"]?.objectValue)
        client["buildId"] = "x"
        #expect(!Set(client.keys).isSubset(of: Self.allowedClient))
    }

    @Test("minimal node connect omits every optional, keeps role and empty scopes")
    func minimalNode() throws {
        let params = ConnectParams.node(
            version: "0.2.0", displayName: "", modelIdentifier: "", instanceId: "", permissions: [:],
            auth: ConnectAuth(token: ""),
            locale: "")
        let wire = try WireJSON(encoding: params)
        try Self.checkClosedKeySet(wire)
        #expect(
            Set(try #require(wire.objectValue).keys)
                == ["minProtocol", "maxProtocol", "client", "caps", "commands", "role", "scopes", "userAgent"])
        #expect(
            Set(try #require(wire["client"]?.objectValue).keys) == [
                "id", "version", "platform", "deviceFamily", "mode",
            ])
        #expect(wire["role"] == "node")
        #expect(wire["scopes"] == .array([]))
        #expect(wire["caps"] == ["talk"])
        #expect(wire["commands"] == ["talk.ptt.start", "talk.ptt.stop", "talk.ptt.cancel", "talk.ptt.once"])
        #expect(wire["minProtocol"] == 3)
        #expect(wire["maxProtocol"] == 4)
        #expect(wire["userAgent"] == "clawtalk/0.2.0")
        #expect(wire["client"]?["platform"] == "linux")
        #expect(wire["client"]?["deviceFamily"] == "Linux")
        #expect(wire["client"]?["id"] == "node-host")
        #expect(wire["client"]?["mode"] == "node")
    }

    @Test("empty optional strings set after building are still omitted")
    func emptyStringsOmitted() throws {
        var params = ConnectParams.node(version: "1")
        params.locale = ""
        params.userAgent = ""
        params.client.displayName = ""
        params.auth = ConnectAuth()
        let wire = try WireJSON(encoding: params)
        #expect(wire["locale"] == nil)
        #expect(wire["userAgent"] == nil)
        #expect(wire["auth"] == nil)
        #expect(wire["client"]?["displayName"] == nil)
    }

    @Test("connect auth: one credential, signed token with ?? order")
    func auth() {
        #expect(ConnectAuth.deviceToken("d").signedToken == "d")
        #expect(ConnectAuth.bootstrapToken("b").signedToken == "b")
        #expect(ConnectAuth.password("p").signedToken == "")
        #expect(ConnectAuth(token: "t", bootstrapToken: "b", deviceToken: "d").signedToken == "t")
        #expect(ConnectAuth(bootstrapToken: "b", deviceToken: "d").signedToken == "d")
        #expect(ConnectAuth(token: "", deviceToken: "d").signedToken == "d")
        #expect(ConnectAuth(token: "").isEmpty)
    }

    @Test("connect request must be smaller than 64 KiB")
    func preauthLimit() throws {
        let small = ConnectParams.node(version: "1")
        let text = try small.encodedRequest(id: "x")
        #expect(text.utf8.count < 65_536)

        func params(displayNameLength: Int) -> ConnectParams {
            ConnectParams.node(version: "1", displayName: String(repeating: "n", count: displayNameLength))
        }
        let baseSize = try params(displayNameLength: 1).encodedRequest(id: "x").utf8.count
        // Exactly 65535 bytes passes, 65536 fails.
        let fitting = params(displayNameLength: 1 + 65_535 - baseSize)
        #expect(try fitting.encodedRequest(id: "x").utf8.count == 65_535)
        let tooLarge = params(displayNameLength: 2 + 65_535 - baseSize)
        #expect(throws: ProtocolError.frameTooLarge(bytes: 65_536, limit: 65_535)) {
            try tooLarge.encodedRequest(id: "x")
        }
    }

    @Test("client id and mode vocabularies match protocol.md §7.3 exactly")
    func vocabularies() {
        #expect(
            Set(GatewayClientID.allCases.map(\.rawValue))
                == [
                    "webchat-ui", "openclaw-control-ui", "openclaw-browser-copilot", "openclaw-tui", "webchat", "cli",
                    "gateway-client", "openclaw-macos", "openclaw-linux", "openclaw-ios", "openclaw-watchos",
                    "openclaw-android", "node-host", "openclaw-worker", "test", "fingerprint", "openclaw-probe",
                ])
        #expect(
            Set(GatewayClientMode.allCases.map(\.rawValue))
                == ["webchat", "cli", "ui", "backend", "node", "worker", "probe", "test"])
    }

    struct ChallengeCase: Sendable, CustomTestStringConvertible {
        var payload: String
        var nonce: String?
        var ts: Int64?
        var testDescription: String { payload }
    }

    @Test(
        "connect.challenge: nonce trimmed once, ts only when an integer",
        arguments: [
            ChallengeCase(payload: #"{"nonce":"abc","ts":1754640000000}"#, nonce: "abc", ts: 1_754_640_000_000),
            ChallengeCase(payload: #"{"nonce":"  abc \n","ts":5}"#, nonce: "abc", ts: 5),
            ChallengeCase(payload: "{\"nonce\":\"\\u00a0abc\\u2028\"}", nonce: "abc", ts: nil),
            ChallengeCase(payload: #"{"nonce":"abc","ts":"1754640000000"}"#, nonce: "abc", ts: nil),
            ChallengeCase(payload: #"{"nonce":"abc","ts":1754640000000.5}"#, nonce: "abc", ts: nil),
            ChallengeCase(payload: #"{"nonce":"abc","ts":1754640000000.0}"#, nonce: "abc", ts: 1_754_640_000_000),
            ChallengeCase(payload: #"{"nonce":"abc","extra":true}"#, nonce: "abc", ts: nil),
            ChallengeCase(payload: #"{"nonce":"   "}"#, nonce: nil, ts: nil),
            ChallengeCase(payload: #"{"nonce":""}"#, nonce: nil, ts: nil),
            ChallengeCase(payload: #"{"nonce":42}"#, nonce: nil, ts: nil),
            ChallengeCase(payload: #"{"ts":5}"#, nonce: nil, ts: nil),
            ChallengeCase(payload: #"[]"#, nonce: nil, ts: nil),
        ])
    func challenge(testCase: ChallengeCase) throws {
        let json = try WireJSON(parsing: testCase.payload)
        if let nonce = testCase.nonce {
            let challenge = try ConnectChallenge(json: json)
            #expect(challenge.nonce == nonce)
            #expect(challenge.ts == testCase.ts)
        } else {
            #expect(throws: ProtocolError.self) { try ConnectChallenge(json: json) }
        }
    }

    @Test("signedAt uses the challenge ts, else the local clock")
    func signedAt() {
        let now = Date(timeIntervalSince1970: 1_800_000_000.1234)
        #expect(ConnectChallenge(nonce: "n", ts: 42).signedAtMs(now: now) == 42)
        #expect(ConnectChallenge(nonce: "n", ts: nil).signedAtMs(now: now) == 1_800_000_000_123)
    }

    @Test("hello-ok: lenient read of the golden response")
    func helloOk() throws {
        guard case .response(let response) = try GatewayFrame.decode(Fixture.data("hello-ok")) else {
            Issue.record("expected a response")
            return
        }
        let hello = try HelloOk(json: response.payload)
        #expect(hello.protocolVersion == 4)
        #expect(hello.server == HelloOk.Server(version: "2026.7.1", connId: "c-42"))
        #expect(hello.features.methods == ["node.invoke.result", "node.event", "talk.speak"])
        #expect(hello.features.events == ["tick", "node.invoke.request"])
        #expect(hello.features.capabilities == ["talk"])
        #expect(hello.supports(method: "talk.speak"))
        #expect(!hello.supports(method: "tts.speak"))
        #expect(hello.auth?.role == "node")
        #expect(hello.auth?.scopes == [])
        #expect(hello.auth?.deviceToken == "dtok_issued_example")
        #expect(hello.auth?.issuedAtMs == 1_754_640_000_123)
        #expect(
            hello.auth?.deviceTokens
                == [
                    HelloOk.IssuedDeviceToken(
                        deviceToken: "dtok_operator_example", role: "operator", scopes: ["operator.read"],
                        issuedAtMs: 1_754_640_000_124)
                ])
        #expect(
            hello.policy == HelloOk.Policy(maxPayload: 26_214_400, maxBufferedBytes: 52_428_800, tickIntervalMs: 30_000)
        )
        #expect(hello.policy.watchdogMs == 60_000)
        #expect(hello.snapshot?["futureField"] == true)
    }

    @Test("hello-ok: old servers without auth/features, and required fields")
    func helloOkMinimal() throws {
        let minimal = try HelloOk(
            json: [
                "type": "hello-ok", "protocol": 3,
                "policy": ["maxPayload": 524_288, "maxBufferedBytes": 1_572_864, "tickIntervalMs": 15_000],
            ])
        #expect(minimal.auth == nil)
        #expect(minimal.features.methods.isEmpty)
        #expect(minimal.server.version == "")
        #expect(minimal.policy.maxPayload == 524_288)

        #expect(throws: ProtocolError.self) { try HelloOk(json: ["protocol": 4]) }
        #expect(throws: ProtocolError.self) {
            try HelloOk(json: ["protocol": 4, "policy": ["maxPayload": 1, "maxBufferedBytes": 1]])
        }
        #expect(throws: ProtocolError.self) {
            try HelloOk(json: [
                "type": "hello-nope", "protocol": 4,
                "policy": ["maxPayload": 1, "maxBufferedBytes": 1, "tickIntervalMs": 1],
            ])
        }
        #expect(throws: ProtocolError.self) {
            try HelloOk(json: ["policy": ["maxPayload": 1, "maxBufferedBytes": 1, "tickIntervalMs": 1]])
        }
    }

    @Test("hello-ok encodes with type and protocol keys (for test gateways)")
    func helloOkEncodes() throws {
        let hello = HelloOk(
            protocolVersion: 4, server: .init(version: "v", connId: "c"), features: .init(methods: ["a"], events: []),
            auth: .init(role: "node", scopes: [], deviceToken: "t", issuedAtMs: 1),
            policy: .init(maxPayload: 10, maxBufferedBytes: 20, tickIntervalMs: 30))
        let wire = try WireJSON(encoding: hello)
        #expect(wire["type"] == "hello-ok")
        #expect(wire["protocol"] == 4)
        #expect(wire["protocolVersion"] == nil)
        #expect(wire["nodeId"] == nil)
        #expect(try HelloOk(json: wire) == hello)
    }
}
