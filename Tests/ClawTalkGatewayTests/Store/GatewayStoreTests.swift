import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import Foundation
import Glibc
import Testing

@Suite("Gateway store")
struct GatewayStoreTests {
    static let key = "127.0.0.1:18789"
    static let pinA = TLSFingerprint(String(repeating: "ab", count: 32))!
    static let pinB = TLSFingerprint(String(repeating: "cd", count: 32))!

    private func withStore(
        now: @escaping @Sendable () -> Int64 = { 1_000 }, _ body: (GatewayStore, String) throws -> Void
    )
        throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = try StateDirectory(path: directory.path + "/state")
        try body(GatewayStore(directory: state, now: now), state.path)
    }

    private func mode(_ path: String) throws -> UInt32 {
        var info = stat()
        try #require(stat(path, &info) == 0)
        return info.st_mode & 0o7777
    }

    private func files(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test("device tokens per (key, deviceId, role), files 0600")
    func tokens() throws {
        try withStore { store, path in
            try store.saveDeviceToken(
                "tok-node", role: "node", scopes: [], issuedAtMs: 5, deviceId: "dev-1", for: Self.key)
            try store.saveDeviceToken(
                "tok-op", role: "operator", scopes: ["operator.read"], issuedAtMs: 6, deviceId: "dev-1", for: Self.key)
            #expect(try store.deviceToken(for: Self.key, deviceId: "dev-1", role: .node)?.token == "tok-node")
            #expect(
                try store.deviceToken(for: Self.key, deviceId: "dev-1", role: .operator)?.scopes == ["operator.read"])
            #expect(try store.deviceToken(for: Self.key, deviceId: "dev-2", role: .node) == nil)
            #expect(try store.deviceToken(for: "other:1", deviceId: "dev-1", role: .node) == nil)
            for file in files(path) { #expect(try mode(path + "/" + file) == 0o600) }
            #expect(files(path).contains("gateways.json"))
        }
    }

    @Test("protocol.md §11.2: the same token keeps the stored scopes; a new token replaces them")
    func sameTokenKeepsScopes() throws {
        try withStore { store, _ in
            try store.saveDeviceToken("t1", role: "node", scopes: ["a"], issuedAtMs: 1, deviceId: "d", for: Self.key)
            try store.saveDeviceToken("t1", role: "node", scopes: ["b"], issuedAtMs: 2, deviceId: "d", for: Self.key)
            let kept = try #require(try store.deviceToken(for: Self.key, deviceId: "d", role: .node))
            #expect(kept.scopes == ["a"])
            #expect(kept.issuedAtMs == 1)
            try store.saveDeviceToken("t2", role: "node", scopes: ["b"], issuedAtMs: 3, deviceId: "d", for: Self.key)
            let replaced = try #require(try store.deviceToken(for: Self.key, deviceId: "d", role: .node))
            #expect(replaced.token == "t2")
            #expect(replaced.scopes == ["b"])
        }
    }

    @Test("hello-ok auth: deviceTokens[] only with a trusted bootstrap route")
    func persistAuth() throws {
        try withStore { store, _ in
            let auth = HelloOk.Auth(
                role: "node", scopes: [], deviceToken: "n1", issuedAtMs: 1,
                deviceTokens: [
                    HelloOk.IssuedDeviceToken(deviceToken: "o1", role: "operator", scopes: ["operator.read"])
                ])
            try store.persist(auth, deviceId: "d", for: Self.key, includeAdditionalRoles: false)
            #expect(try store.deviceToken(for: Self.key, deviceId: "d", role: .node)?.token == "n1")
            #expect(try store.deviceToken(for: Self.key, deviceId: "d", role: .operator) == nil)
            try store.persist(auth, deviceId: "d", for: Self.key, includeAdditionalRoles: true)
            #expect(try store.deviceToken(for: Self.key, deviceId: "d", role: .operator)?.token == "o1")
            try store.removeDeviceToken(for: Self.key, role: .node)
            #expect(try store.deviceToken(for: Self.key, deviceId: "d", role: .node) == nil)
            #expect(try store.deviceToken(for: Self.key, deviceId: "d", role: .operator) != nil)
        }
    }

    @Test("pending bootstrap token: replaced by a fresh one, hidden once expired, cleared")
    func bootstrap() throws {
        try withStore(now: { 10_000 }) { store, _ in
            try store.setPendingBootstrapToken("b1", for: Self.key)
            try store.setPendingBootstrapToken("b2", expiresAtMs: 20_000, for: Self.key)
            #expect(try store.pendingBootstrapToken(for: Self.key) == "b2")
            try store.setPendingBootstrapToken("b3", expiresAtMs: 9_000, for: Self.key)
            #expect(try store.pendingBootstrapToken(for: Self.key) == nil)
            try store.setPendingBootstrapToken("b4", for: Self.key)
            try store.clearPendingBootstrapToken(for: Self.key)
            #expect(try store.pendingBootstrapToken(for: Self.key) == nil)
        }
    }

    @Test("TLS pins: explicit sources replace, TOFU only fills an empty slot, TXT never writes")
    func pins() throws {
        try withStore { store, _ in
            #expect(try store.checkDiscoveredFingerprint(Self.pinA, for: Self.key) == .noStoredPin)
            #expect(try store.pin(for: Self.key) == nil)
            #expect(try store.recordTrustOnFirstUse(Self.pinA, for: Self.key))
            #expect(try store.pin(for: Self.key)?.source == .trustOnFirstUse)
            #expect(try !store.recordTrustOnFirstUse(Self.pinB, for: Self.key))
            #expect(try store.pin(for: Self.key)?.fingerprint == Self.pinA)
            #expect(try store.checkDiscoveredFingerprint(Self.pinB, for: Self.key) == .conflictsWithStoredPin)
            #expect(try store.pin(for: Self.key)?.fingerprint == Self.pinA)
            #expect(try store.checkDiscoveredFingerprint(Self.pinA, for: Self.key) == .matchesStoredPin)
            try store.setPin(Self.pinB, source: .setupCode, for: Self.key)
            let pin = try #require(try store.pin(for: Self.key))
            #expect(pin.fingerprint == Self.pinB)
            #expect(pin.source == .setupCode)
            try store.removePin(for: Self.key)
            #expect(try store.pin(for: Self.key) == nil)
        }
    }

    @Test("remembered signature version, operator client pair and triggers round-trip")
    func remembered() throws {
        try withStore { store, _ in
            let signature = RememberedSignature(version: .v2, serverVersion: "2026.7.1")
            try store.setRememberedSignature(signature, for: Self.key)
            try store.setOperatorClientPair(.cli, for: Self.key)
            try store.setVoiceWakeTriggers(["hey claw"], for: Self.key)
            #expect(try store.rememberedSignature(for: Self.key) == signature)
            #expect(try store.operatorClientPair(for: Self.key) == .cli)
            #expect(try store.voiceWakeTriggers(for: Self.key) == ["hey claw"])
            try store.setRememberedSignature(nil, for: Self.key)
            #expect(try store.rememberedSignature(for: Self.key) == nil)
        }
    }

    @Test("registry: register, list, use, current, forget deletes tokens, pins and data files")
    func registry() throws {
        try withStore { store, path in
            let first = try GatewayEndpoint.parse("wss://GW.example.ts.net/openclaw-gw")
            let second = try GatewayEndpoint.parse("ws://[fd00::1]:18789")
            let firstKey = try store.register(first)
            let secondKey = try store.register(second, makeCurrent: false)
            #expect(firstKey == "gw.example.ts.net:443/openclaw-gw")
            #expect(try store.current() == firstKey)
            try store.use(secondKey)
            #expect(try store.current() == secondKey)
            #expect(throws: GatewayStoreError.unknownGateway("nope:1")) { try store.use("nope:1") }
            try store.saveDeviceToken("t", role: "node", scopes: [], issuedAtMs: nil, deviceId: "d", for: firstKey)
            try store.setPin(Self.pinA, source: .config, for: firstKey)
            let dataFile = try store.dataFileName(for: firstKey, suffix: "queue")
            try StateDirectory(path: path).writeSecretFile(dataFile, Data("x".utf8))
            let listed = try store.list()
            #expect(listed.map(\.key) == [firstKey, secondKey])
            #expect(listed[0].url == "wss://gw.example.ts.net:443/openclaw-gw")
            #expect(listed[0].tokenRoles == ["node"])
            #expect(listed[0].pinSource == .config)
            #expect(listed[1].isCurrent)

            let otherFiles = files(path).filter { !$0.contains("gw.example") }
            try store.forget(firstKey)
            #expect(files(path) == otherFiles)
            #expect(try store.list().map(\.key) == [secondKey])
            #expect(try store.deviceToken(for: firstKey, deviceId: "d", role: .node) == nil)
            #expect(try store.pin(for: firstKey) == nil)
            try store.forget(secondKey)
            #expect(try store.current() == nil)
        }
    }

    @Test("data file suffixes are validated")
    func suffixes() throws {
        try withStore { store, _ in
            #expect(throws: GatewayStoreError.self) { try store.dataFileName(for: Self.key, suffix: "json") }
            #expect(throws: GatewayStoreError.self) { try store.dataFileName(for: Self.key, suffix: "../x") }
            #expect(throws: GatewayStoreError.self) { try store.dataFileName(for: Self.key, suffix: "") }
            let name = try store.dataFileName(for: Self.key, suffix: "outbox.1")
            #expect(name == "gateway-127.0.0.1%3A18789.outbox.1")
        }
    }

    @Test("a malformed record is an error, not silently replaced")
    func malformed() throws {
        try withStore { store, path in
            try store.saveDeviceToken("t", role: "node", scopes: [], issuedAtMs: nil, deviceId: "d", for: Self.key)
            let name = try #require(files(path).first { $0.hasPrefix("gateway-") })
            try StateDirectory(path: path).writeSecretFile(name, Data("{\"gatewayKey\": 5}".utf8))
            #expect(throws: GatewayStoreError.self) { try store.deviceToken(for: Self.key, deviceId: "d", role: .node) }
        }
    }

    @Test("a record readable by others is refused")
    func insecureFile() throws {
        try withStore { store, path in
            try store.setVoiceWakeTriggers(["a"], for: Self.key)
            let name = try #require(files(path).first { $0.hasPrefix("gateway-") })
            #expect(chmod(path + "/" + name, 0o644) == 0)
            #expect(throws: GatewayStoreError.self) { try store.voiceWakeTriggers(for: Self.key) }
        }
    }
}
