import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@Suite("Gateway connection: handshake and credentials", .timeLimit(.minutes(1)))
struct GatewayConnectionHandshakeTests {
    /// Verifies the Ed25519 signature of a sent `connect` against the payload rebuilt from the
    /// sent fields.
    static func signatureVerifies(_ params: WireJSON, version: DeviceAuthVersion) throws -> Bool {
        let device = try #require(params["device"])
        let client = try #require(params["client"])
        let auth = params["auth"]
        let payload = DeviceAuthPayload(
            version: version, deviceId: try #require(device["id"]?.stringValue),
            clientId: try #require(client["id"]?.stringValue), clientMode: try #require(client["mode"]?.stringValue),
            role: try #require(params["role"]?.stringValue),
            scopes: try #require(params["scopes"]?.stringArrayValue),
            signedAtMs: try #require(device["signedAt"]?.int64Value), token: auth?["token"]?.stringValue,
            deviceToken: auth?["deviceToken"]?.stringValue, bootstrapToken: auth?["bootstrapToken"]?.stringValue,
            nonce: try #require(device["nonce"]?.stringValue), platform: client["platform"]?.stringValue,
            deviceFamily: client["deviceFamily"]?.stringValue)
        let key = try Ed25519PublicKey(
            rawRepresentation: Base64URL.decode(try #require(device["publicKey"]?.stringValue)))
        let signature = try Base64URL.decode(try #require(device["signature"]?.stringValue))
        return key.isValidSignature(signature, for: Array(payload.string.utf8))
    }

    @Test("connect: closed fields, signed v3 over challenge ts and trimmed nonce, exactly one credential")
    func handshakeFields() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let connection = try Fixtures.connection(dialer: dialer, store: store, sharedToken: "shared-secret")
        let identity = try Fixtures.identity()
        try await withRunning(connection) {
            let peer = try await dialer.nextPeer()
            let connect = try await peer.acceptConnect(hello: TestHello.payload(deviceToken: "dtok-1", issuedAtMs: 77))
            let params = try #require(connect.params)
            let object = try #require(params.objectValue)
            #expect(
                Set(object.keys) == [
                    "minProtocol", "maxProtocol", "client", "caps", "commands", "role", "scopes", "device", "auth",
                    "locale", "userAgent",
                ])
            #expect(params["minProtocol"] == 3)
            #expect(params["maxProtocol"] == 4)
            #expect(params["role"] == "node")
            #expect(params["scopes"] == [])
            #expect(params["caps"] == ["talk"])
            #expect(params["commands"] == ["talk.ptt.start", "talk.ptt.stop", "talk.ptt.cancel", "talk.ptt.once"])
            let client = try #require(params["client"]?.objectValue)
            #expect(
                Set(client.keys) == ["id", "displayName", "version", "platform", "deviceFamily", "mode", "instanceId"])
            #expect(params["client"]?["id"] == "node-host")
            #expect(params["client"]?["mode"] == "node")
            #expect(params["client"]?["platform"] == "linux")
            #expect(params["client"]?["deviceFamily"] == "Linux")
            #expect(params["auth"] == ["token": "shared-secret"])
            let device = try #require(params["device"])
            #expect(
                Set(try #require(device.objectValue).keys) == ["id", "publicKey", "signature", "signedAt", "nonce"])
            #expect(device["id"]?.stringValue == identity.deviceId)
            #expect(device["publicKey"]?.stringValue == identity.publicKeyBase64URL)
            #expect(device["signedAt"]?.int64Value == ScriptedPeer.challengeTs)
            #expect(device["nonce"] == "nonce-abc")
            #expect(try Self.signatureVerifies(params, version: .v3))
            #expect(try !Self.signatureVerifies(params, version: .v2))
            #expect(WireID.isLowercaseUUIDv4(connect.id))

            let state = try await Fixtures.waitForState(connection) { $0.isConnected }
            guard case .connected(let summary) = state else { return }
            #expect(summary.serverVersion == "2026.7.1")
            #expect(await connection.epoch == 1)
            let stored = try #require(
                try store.deviceToken(for: connection.gatewayKey, deviceId: identity.deviceId, role: .node))
            #expect(stored.token == "dtok-1")
            #expect(stored.issuedAtMs == 77)
        }
        #expect(await connection.state == .stopped)
    }

    @Test("the stored device token wins over the shared token on the next socket; epochs count sockets")
    func deviceTokenReused() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let clock = ManualClock()
        let connection = try Fixtures.connection(
            dialer: dialer, store: store, sharedToken: "shared-secret", clock: clock)
        try await withRunning(connection) {
            let first = try await dialer.nextPeer()
            try await first.acceptConnect(hello: TestHello.payload(deviceToken: "dtok-1"))
            try await Fixtures.waitForState(connection) { $0.isConnected }
            first.sendEvent("shutdown", payload: ["reason": "restart", "restartExpectedMs": 1000])
            first.close(code: 1012, reason: "service restart")
            // The announced restart time is longer than the 500 ms floor.
            try await Fixtures.reconnect(connection, after: .seconds(1), on: clock)
            let second = try await dialer.nextPeer()
            let connect = try await second.acceptConnect()
            #expect(connect.params?["auth"] == ["deviceToken": "dtok-1"])
            #expect(try Self.signatureVerifies(try #require(connect.params), version: .v3))
            try await Fixtures.waitForState(connection) { $0.isConnected }
            #expect(await connection.epoch == 2)
        }
    }

    @Test("a setup-code bootstrap token is sent first, then cleared after hello-ok")
    func bootstrapToken() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let connection = try Fixtures.connection(dialer: dialer, store: store, sharedToken: "shared-secret")
        try store.saveDeviceToken(
            "old", role: "node", scopes: [], issuedAtMs: nil, deviceId: try Fixtures.identity().deviceId,
            for: connection.gatewayKey)
        try store.setPendingBootstrapToken("boot-123", for: connection.gatewayKey)
        try await withRunning(connection) {
            let peer = try await dialer.nextPeer()
            let connect = try await peer.acceptConnect(hello: TestHello.payload(deviceToken: "fresh"))
            #expect(connect.params?["auth"] == ["bootstrapToken": "boot-123"])
            try await Fixtures.waitForState(connection) { $0.isConnected }
            #expect(try store.pendingBootstrapToken(for: connection.gatewayKey) == nil)
            let deviceId = try Fixtures.identity().deviceId
            #expect(
                try store.deviceToken(for: connection.gatewayKey, deviceId: deviceId, role: .node)?.token == "fresh")
        }
    }

    @Test("v3 rejected → v2 on a new socket, remembered for the gateway key")
    func signatureFallback() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let clock = ManualClock()
        let connection = try Fixtures.connection(dialer: dialer, store: store, clock: clock)
        try await withRunning(connection) {
            let first = try await dialer.nextPeer()
            let v3 = try await first.rejectConnect(
                ErrorShape(
                    code: "INVALID_REQUEST", message: "device signature invalid",
                    details: ["code": "DEVICE_AUTH_SIGNATURE_INVALID"]))
            #expect(try Self.signatureVerifies(try #require(v3.params), version: .v3))
            #expect(v3.params?["auth"] == nil)
            try await Fixtures.reconnect(connection, after: .milliseconds(250), on: clock)
            let second = try await dialer.nextPeer()
            let v2 = try await second.acceptConnect(hello: TestHello.payload(serverVersion: "2026.6.0"))
            #expect(try Self.signatureVerifies(try #require(v2.params), version: .v2))
            #expect(try !Self.signatureVerifies(try #require(v2.params), version: .v3))
            try await Fixtures.waitForState(connection) { $0.isConnected }
            #expect(
                try store.rememberedSignature(for: connection.gatewayKey)
                    == RememberedSignature(version: .v2, serverVersion: "2026.6.0"))
        }
    }

    @Test("PAIRING_REQUIRED pauses with the request id and approval command, then re-probes")
    func pairingPause() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let clock = ManualClock()
        let connection = try Fixtures.connection(dialer: dialer, store: store, clock: clock)
        try await withRunning(connection) {
            let first = try await dialer.nextPeer()
            try await first.rejectConnect(
                ErrorShape(
                    code: "NOT_PAIRED", message: "pairing required: device is not approved yet",
                    details: ["code": "PAIRING_REQUIRED", "reason": "not-paired", "requestId": "r-9c1"]))
            let state = try await Fixtures.waitForState(connection) { $0.pause != nil }
            let pause = try #require(state.pause)
            #expect(pause.code == "PAIRING_REQUIRED")
            #expect(pause.requestId == "r-9c1")
            #expect(pause.pairing?.approvalCommand == "openclaw devices approve r-9c1")
            #expect(pause.pairing?.deviceId == (try Fixtures.identity().deviceId))
            // The spec's re-probe period: 60 s.
            try await clock.advanceToSleeper(in: .seconds(60))
            let reprobe = try await dialer.nextPeer()
            try await reprobe.acceptConnect(hello: TestHello.payload(deviceToken: "approved"))
            try await Fixtures.waitForState(connection) { $0.isConnected }
        }
    }

    @Test("a pause ends on resume()")
    func resumeFromPause() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let clock = ManualClock()
        let connection = try Fixtures.connection(dialer: dialer, store: store, clock: clock)
        try await withRunning(connection) {
            let first = try await dialer.nextPeer()
            try await first.rejectConnect(
                ErrorShape(code: "INVALID_REQUEST", message: "unauthorized", details: ["code": "AUTH_TOKEN_MISSING"]))
            try await Fixtures.waitForState(connection) { $0.pause?.code == "AUTH_TOKEN_MISSING" }
            try await Task.sleep(for: .milliseconds(50))
            // Time does not pass here: no timer at all (no backoff, no re-probe) is what keeps
            // the pause from ending by itself.
            #expect(clock.sleeperDeadlines.isEmpty)
            #expect(dialer.dialRequests.count == 1)
            await connection.resume()
            try await dialer.nextPeer().acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
        }
    }

    @Test("ws:// to a remote host pauses without dialing")
    func insecureRemote() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let dialer = ScriptedDialer()
        let connection = try Fixtures.connection(
            endpoint: try GatewayEndpoint.parse("ws://gateway.example.com:18789"), dialer: dialer, store: store)
        try await withRunning(connection) {
            let state = try await Fixtures.waitForState(connection) { $0.pause != nil }
            #expect(state.pause?.code == "INSECURE_TRANSPORT")
            #expect(dialer.dialRequests.isEmpty)
        }
    }

    @Test("wss:// without a pin: the observed fingerprint is stored after hello-ok and pinned next time")
    func trustOnFirstUse() async throws {
        let (store, directory) = try Fixtures.store()
        defer { directory.remove() }
        let fingerprint = String(repeating: "3a", count: 32)
        let dialer = ScriptedDialer(certificateSHA256: fingerprint)
        let clock = ManualClock()
        let connection = try Fixtures.connection(
            endpoint: try GatewayEndpoint.parse("wss://gw.example.com"), dialer: dialer, store: store, clock: clock)
        try await withRunning(connection) {
            let first = try await dialer.nextPeer()
            try await first.acceptConnect()
            try await Fixtures.waitForState(connection) { $0.isConnected }
            #expect(dialer.dialRequests.first?.tlsPinSHA256 == nil)
            #expect(dialer.dialRequests.first?.url == "wss://gw.example.com:443/")
            let pin = try #require(try store.pin(for: connection.gatewayKey))
            #expect(pin.fingerprint.hex == fingerprint)
            #expect(pin.source == .trustOnFirstUse)
            first.close(code: 1006, reason: "gone")
            try await Fixtures.reconnect(connection, after: .seconds(1), on: clock)
            try await dialer.nextPeer().acceptConnect()
            #expect(dialer.dialRequests.last?.tlsPinSHA256 == fingerprint)
        }
    }
}
