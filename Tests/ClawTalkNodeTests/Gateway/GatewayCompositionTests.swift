import ClawTalkDevices
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkNode

/// The pure parts of the gateway composition: target precedence, surface, locale, wait causes.
@Suite("Gateway composition")
struct GatewayCompositionTests {
    func store(_ home: TemporaryHome) throws -> GatewayStore {
        GatewayStore(directory: try StateDirectory(path: home.state + "/clawtalk"))
    }

    @Test func configuredURLOverridesTheRegistryAndBringsItsSecretAndPin() throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let store = try store(home)
        try store.register(try GatewayEndpoint.parse("ws://127.0.0.1:18789"))
        var settings = GatewaySettings()
        settings.url = "wss://gw.example.net:8443/ctx"
        settings.token = "config-token"
        settings.tlsFingerprint = String(repeating: "ab", count: 32)
        let target = try #require(try GatewayTarget.resolve(settings: settings, store: store))
        #expect(target.source == .config)
        #expect(target.key == "gw.example.net:8443/ctx")
        #expect(target.sharedToken == "config-token")
        #expect(target.configuredPin?.hex == String(repeating: "ab", count: 32))
    }

    @Test func aRegistryGatewayPrefersItsStoredSecretAndIgnoresTheConfiguredPin() throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let store = try store(home)
        let key = try store.register(try GatewayEndpoint.parse("ws://127.0.0.1:18789"))
        var settings = GatewaySettings()
        settings.token = "config-token"
        settings.tlsFingerprint = String(repeating: "ab", count: 32)
        var target = try #require(try GatewayTarget.resolve(settings: settings, store: store))
        #expect(target.source == .registry)
        #expect(target.sharedToken == "config-token", "the configured secret is the fallback")
        #expect(target.configuredPin == nil)
        try GatewaySecretStore(store: store).save(GatewaySecret(password: "stored"), for: key)
        target = try #require(try GatewayTarget.resolve(settings: settings, store: store))
        #expect(target.sharedToken == nil)
        #expect(target.password == "stored")
        let mode = try FileManager.default.attributesOfItem(
            atPath: store.directory.filePath(try store.dataFileName(for: key, suffix: "secret")))[.posixPermissions]
        #expect(mode as? Int == 0o600)
        try store.forget(key)
        #expect(try GatewaySecretStore(store: store).secret(for: key) == nil, "forget deletes the secret")
        #expect(try GatewayTarget.resolve(settings: GatewaySettings(), store: store) == nil)
    }

    @Test func anInvalidConfiguredURLIsReported() throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        var settings = GatewaySettings()
        settings.url = "http://gw"
        #expect(throws: NodeServiceError.self) { try GatewayTarget.resolve(settings: settings, store: try store(home)) }
    }

    @Test func theSurfaceDeclaresTalkPTTAndAnHonestMicrophone() {
        let source = AudioDevice(
            kind: .source, name: "alsa_input.usb", description: "USB Mic", isDefault: true, isMonitor: false,
            sampleRate: 48000, channels: 1)
        let monitor = AudioDevice(
            kind: .source, name: "out.monitor", description: "Monitor", isDefault: false, isMonitor: true,
            sampleRate: 48000, channels: 2)
        var mic = MicSettings()
        let surface = GatewayConnectionFactory.nodeSurface(mic: mic, devices: [source, monitor])
        #expect(surface.caps == [.talk])
        #expect(
            GatewayConnectionFactory.nodeSurface(mic: mic, devices: nil, wakeEnabled: true).caps == [.talk, .voiceWake])
        #expect(surface.commands == ["talk.ptt.start", "talk.ptt.stop", "talk.ptt.cancel", "talk.ptt.once"])
        #expect(surface.permissions == [.microphone: true, .speechRecognition: false])
        #expect(GatewayConnectionFactory.nodeSurface(mic: mic, devices: nil).permissions[.microphone] == false)
        #expect(GatewayConnectionFactory.microphoneAvailable(device: nil, devices: [monitor]) == false)
        mic.device = "USB Mic"
        #expect(GatewayConnectionFactory.microphoneAvailable(device: mic.device, devices: [source]))
        #expect(!GatewayConnectionFactory.microphoneAvailable(device: "missing", devices: [source]))
    }

    @Test(
        arguments: [
            (["LANG": "en_US.UTF-8"], "en-US"), (["LC_ALL": "de_DE@euro", "LANG": "en_US"], "de-DE"),
            (["LANG": "C"], nil), (["LANG": "C.UTF-8"], nil), ([:], nil), (["LANG": "fr"], "fr"),
        ] as [([String: String], String?)])
    func localeFromTheEnvironment(environment: [String: String], locale: String?) {
        #expect(GatewayConnectionFactory.locale(environment: environment) == locale)
    }

    @Test(
        arguments: [
            ("TLS pin mismatch: pin mismatch: expected a, got b", true, PairingProbe.WaitCause.pinMismatch),
            ("dial failed: TLS certificate of 127.0.0.1:1 not trusted: self-signed", true, .untrusted),
            ("dial failed: connection to 127.0.0.1:1 failed: refused", false, .unreachable),
            ("signature v3 rejected, retrying with v2", false, .deliberateRetry),
            ("gateway restart (1012)", false, .deliberateRetry),
            ("closed (1006)", false, .transient),
            ("no hello-ok within 30 seconds", false, .transient),
        ] as [(String, Bool, PairingProbe.WaitCause)])
    func waitCausesAreClassified(cause: String, secure: Bool, expected: PairingProbe.WaitCause) {
        #expect(PairingProbe.classify(cause, secure: secure) == expected)
    }

    @Test func legacySetupCodeSecretsAndPinsArePlanned() throws {
        let json =
            #"{"url":"wss://gw.example.net:443","token":"legacy","tlsFingerprint":"sha256:"#
            + String(repeating: "AB:", count: 31) + #"AB"}"#
        let plan = try PairingPlan.make(
            setupCode: json, gatewayURL: nil, token: nil, password: nil, tlsFingerprint: nil,
            allowInsecureRemote: false)
        #expect(plan.secret == GatewaySecret(token: "legacy"))
        #expect(plan.pin?.hex == String(repeating: "ab", count: 32))
        #expect(plan.pinSource == .setupCode)
        #expect(plan.target(0).configuredPin == plan.pin)
        #expect(throws: PairingError.self) {
            try PairingPlan.make(
                setupCode: json, gatewayURL: nil, token: nil, password: nil,
                tlsFingerprint: String(repeating: "cd", count: 32), allowInsecureRemote: false)
        }
    }
}
