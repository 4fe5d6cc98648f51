import ClawTalkAudio
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkCLI
@testable import ClawTalkNode

@Suite("doctor: speech-to-text, gateway, TLS, pairing and microphone checks")
struct DoctorLiveChecksTests {
    @Test func anUnreachableSTTServerFailsWithAFix() async throws {
        var stt = STTSettings()
        let port = closedLoopbackPort()
        stt.wyomingPort = port
        let missing = SpeechServerSupervisor.installedServer(
            paths: XDGPaths(environment: ["XDG_DATA_HOME": "/nonexistent/clawtalk-doctor"]))
        let check = await DoctorCommand.checkSTT(stt, server: missing)
        #expect(check.status == .fail)
        #expect(check.detail.contains("127.0.0.1:\(port)"))
        #expect(check.fix?.contains("install it with scripts/setup") == true)
        stt.server = .external
        let external = await DoctorCommand.checkSTT(stt, server: missing)
        #expect(external.fix?.contains("systemctl --user enable --now clawtalk-stt") == true)
        stt.engine = .pocketsphinx
        #expect(await DoctorCommand.checkSTT(stt, server: missing).status == .ok)
    }

    /// Default settings: run's own server on its private socket, which doctor names and never
    /// probes for someone else's.
    @Test func theDefaultIsRunsOwnServerOnItsSocket() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FakeWhisperInstall.install(dataDirectory: root)
        let paths = XDGPaths(environment: ["XDG_DATA_HOME": root, "XDG_RUNTIME_DIR": root + "/run", "HOME": root])
        let check = await DoctorCommand.checkSTT(
            STTSettings(), paths: paths, server: SpeechServerSupervisor.installedServer(paths: paths))
        #expect(check.status == .ok)
        #expect(
            check.detail.contains("starts the installed server on \(root)/run/clawtalk/speech.sock"), "\(check.detail)")
    }

    /// With the server installed and nothing answering, `run` would start it: not a failure.
    @Test func anInstalledServerThatRunWouldStartIsFine() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FakeWhisperInstall.install(dataDirectory: root)
        var stt = STTSettings()
        stt.wyomingPort = closedLoopbackPort()
        let check = await DoctorCommand.checkSTT(
            stt, server: SpeechServerSupervisor.installedServer(paths: XDGPaths(environment: ["XDG_DATA_HOME": root])))
        #expect(check.status == .ok)
        #expect(check.detail.contains("'clawtalk run' starts the installed one"))
    }

    /// A running service's view wins: supervised and ready, or why there is none.
    @Test func theRunningServicesServerIsReported() async {
        var stt = STTSettings()
        stt.wyomingPort = closedLoopbackPort()
        let now = ServiceStatus.timestamp()
        var status = ServiceStatus(
            pid: 1, version: "test", startedAt: now, updatedAt: now, deviceId: "dev", gateway: nil,
            node: .idle("connected", summary: "", at: now), operator: .idle("disabled", summary: "", at: now),
            caps: [], commands: [], permissions: [:])
        status.speechServer = SpeechServerStatus(
            role: .supervised, ready: true, address: "127.0.0.1:10300", pid: 42, detail: "")
        let ready = await DoctorCommand.checkSTT(stt, service: status)
        #expect(ready.status == .ok)
        #expect(ready.detail == "Wyoming server: supervised, ready (pid 42) at 127.0.0.1:10300")
        status.speechServer = SpeechServerStatus(
            role: .none, ready: false, address: "127.0.0.1:10300", detail: "not installed")
        let none = await DoctorCommand.checkSTT(stt, service: status)
        #expect(none.status == .warn)
        #expect(none.detail.contains("none: not installed"))
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
}

/// `doctor`'s microphone check on the audio rig (the rig's turn, apart from the checks above).
@Suite("doctor: microphone level (audio rig)", .audioRig)
struct DoctorMicrophoneRigTests {
    @Test(
        "microphone level on the rig: a tone into the virtual speaker is signal, silence a warning",
        .needsAudioRig)
    func microphoneLevel() async throws {
        let directory = try TempDirectory(prefix: "doctor-mic")
        let wav = directory.path("tone.wav")
        try runTool(
            "sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", wav, "synth", "30", "sine", "440", "vol", "0.5"])
        let player = Process()
        player.executableURL = URL(fileURLWithPath: "/usr/bin/paplay")
        player.arguments = [wav]
        try player.run()
        defer {
            kill(player.processIdentifier, SIGKILL)
            player.waitUntilExit()
        }
        try await Task.sleep(for: .milliseconds(300))
        // paplay may start (and its stream end) late on a busy machine: look again, 20 times at most.
        var loud = DoctorCommand.checkMicrophone(device: nil, milliseconds: 500)
        for _ in 0..<20 where loud.status != .ok {
            loud = DoctorCommand.checkMicrophone(device: nil, milliseconds: 500)
        }
        #expect(loud.status == .ok, "\(loud)")
        kill(player.processIdentifier, SIGKILL)
        player.waitUntilExit()
        try await Task.sleep(for: .milliseconds(300))
        var quiet = DoctorCommand.checkMicrophone(device: nil, milliseconds: 500)
        for _ in 0..<20 where quiet.status != .warn {
            quiet = DoctorCommand.checkMicrophone(device: nil, milliseconds: 500)
        }
        #expect(quiet.status == .warn, "\(quiet)")
        #expect(quiet.fix?.contains("pactl set-source-mute") == true)
    }
}
