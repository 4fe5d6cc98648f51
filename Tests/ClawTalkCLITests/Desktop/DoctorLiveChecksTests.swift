import ClawTalkAudio
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkCLI

@Suite("doctor: speech-to-text, gateway, TLS, pairing and microphone checks")
struct DoctorLiveChecksTests {
    @Test func anUnreachableSTTServerFailsWithAFix() async throws {
        var stt = STTSettings()
        stt.wyomingPort = closedLoopbackPort()
        let check = await DoctorCommand.checkSTT(stt)
        #expect(check.status == .fail)
        #expect(check.detail.contains("127.0.0.1:\(stt.wyomingPort)"))
        #expect(check.fix?.contains("systemctl --user enable --now clawtalk-stt") == true)
        stt.engine = .pocketsphinx
        #expect(await DoctorCommand.checkSTT(stt).status == .ok)
    }

    @Test func gatewayChecksReachabilityAndThePin() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let store = GatewayStore(directory: try StateDirectory(path: home.state + "/clawtalk"))
        var settings = Settings()
        #expect(await DoctorCommand.checkGateway(settings: settings, store: store).status == .warn)

        settings.gateway.url = "ws://127.0.0.1:\(closedLoopbackPort())"
        let closed = await DoctorCommand.checkGateway(settings: settings, store: store)
        #expect(closed.status == .fail && closed.fix != nil, "\(closed)")

        let certificate = try EndToEnd.certificate(in: home.root)
        let (gateway, url) = try await EndToEnd.gateway(tls: (certificate.cert, certificate.key))
        defer { Task { await gateway.stopListening() } }
        settings.gateway.url = url
        let untrusted = await DoctorCommand.checkGateway(settings: settings, store: store)
        #expect(untrusted.status == .fail)
        #expect(untrusted.fix?.contains("--tls-fingerprint \(certificate.pin)") == true, "\(untrusted)")
        settings.gateway.tlsFingerprint = certificate.pin
        let pinned = await DoctorCommand.checkGateway(settings: settings, store: store)
        #expect(pinned.status == .ok, "\(pinned)")
        settings.gateway.tlsFingerprint = String(repeating: "ab", count: 32)
        let mismatch = await DoctorCommand.checkGateway(settings: settings, store: store)
        #expect(mismatch.status == .fail && mismatch.detail.contains("does not match the pin"), "\(mismatch)")
    }

    @Test func pairingReportsAPendingRequestWithTheApprovalCommand() throws {
        let now = ServiceStatus.timestamp()
        var node = ServiceStatus.Role.idle("waiting", summary: "waiting for approval", at: now)
        node.pairing = ServiceStatus.Pairing(
            PairingRequest(requestId: "r-1", deviceId: "dev", reason: "not-paired"))
        let status = ServiceStatus(
            pid: 1, version: "test", startedAt: now, updatedAt: now, deviceId: "dev", gateway: nil, node: node,
            operator: .idle("disabled", summary: "", at: now), caps: [], commands: ["talk.ptt.start"],
            permissions: [:])
        let pending = DoctorCommand.checkPairing(service: status, settings: Settings(), store: nil)
        #expect(pending.status == .fail)
        #expect(pending.fix == "on the gateway host run: openclaw devices approve r-1")
        var connected = status
        connected.node = .idle("connected", summary: "connected", at: now)
        let ok = DoctorCommand.checkPairing(service: connected, settings: Settings(), store: nil)
        #expect(ok.status == .ok && ok.detail.contains("talk.ptt.start"))
        #expect(DoctorCommand.checkPairing(service: nil, settings: Settings(), store: nil).status == .warn)
    }

    @Test(
        "microphone level on the rig: a tone into the virtual speaker is signal, silence a warning",
        .enabled(if: ProcessInfo.processInfo.environment["CLAWTALK_DEVICE_TESTS"] == "1"))
    func microphoneLevel() async throws {
        let directory = try TempDirectory(prefix: "doctor-mic")
        let wav = directory.path("tone.wav")
        try runTool(
            "sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", wav, "synth", "4", "sine", "440", "vol", "0.5"])
        let player = Process()
        player.executableURL = URL(fileURLWithPath: "/usr/bin/paplay")
        player.arguments = [wav]
        try player.run()
        defer {
            kill(player.processIdentifier, SIGKILL)
            player.waitUntilExit()
        }
        try await Task.sleep(for: .milliseconds(300))
        let loud = DoctorCommand.checkMicrophone(device: nil, milliseconds: 500)
        #expect(loud.status == .ok, "\(loud)")
        kill(player.processIdentifier, SIGKILL)
        player.waitUntilExit()
        try await Task.sleep(for: .milliseconds(300))
        let quiet = DoctorCommand.checkMicrophone(device: nil, milliseconds: 500)
        #expect(quiet.status == .warn, "\(quiet)")
        #expect(quiet.fix?.contains("pactl set-source-mute") == true)
    }
}
