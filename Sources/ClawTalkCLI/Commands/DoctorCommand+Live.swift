import ClawTalkAudio
import ClawTalkDesktop
import ClawTalkDevices
import ClawTalkGateway
import ClawTalkNode
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import Foundation

/// The checks of `clawtalk doctor` that talk to something: microphone signal, the speech-to-text
/// server, the gateway (reachability and TLS) and pairing with the declared commands.
extension DoctorCommand {
    /// Below this RMS level the microphone counts as silent (digital silence is -120 dBFS; a
    /// quiet room with a working microphone is around -60 to -50).
    static let silenceThresholdDBFS = -70.0

    /// Captures `milliseconds` from the capture device and reports its level.
    static func checkMicrophone(device: String?, milliseconds: Int = 1000) -> DoctorCheck {
        let name = "microphone level"
        do {
            let stream = try PulseCaptureStream(format: .speech, device: device, streamName: "clawtalk doctor")
            defer { stream.close() }
            let count = AudioFormat.speech.sampleRate * milliseconds / 1000
            var samples = [Int16](repeating: 0, count: count)
            // The first 200 ms carry the stream's start-up; measure what follows.
            var warmUp = [Int16](repeating: 0, count: AudioFormat.speech.sampleRate / 5)
            try warmUp.withUnsafeMutableBufferPointer { try stream.read(into: $0) }
            try samples.withUnsafeMutableBufferPointer { try stream.read(into: $0) }
            let level = LevelMeter.rmsDBFS(samples)
            let peak = LevelMeter.dBFS(LevelMeter.peak(samples))
            let shown =
                "RMS \(Self.rounded(level)) dBFS, peak \(Self.rounded(peak)) dBFS over \(milliseconds) ms"
                + " from \(device ?? "the default source")"
            guard level > silenceThresholdDBFS else {
                return DoctorCheck(
                    name: name, status: .warn, detail: "no signal: \(shown)",
                    fix: "unmute and raise the source: pactl set-source-mute \(device ?? "@DEFAULT_SOURCE@") 0; "
                        + "pactl set-source-volume \(device ?? "@DEFAULT_SOURCE@") 100% (or pick another with --mic-device)"
                )
            }
            return DoctorCheck(name: name, status: .ok, detail: shown)
        } catch {
            return DoctorCheck(
                name: name, status: .fail, detail: "cannot capture: \(error)",
                fix: "check the source exists ('clawtalk devices') and that the sound server runs for this user")
        }
    }

    /// Which Wyoming server speech-to-text uses (only when `stt.engine` is `wyoming`): the
    /// running service's (supervised or external, ready or not) when `service` is given, else
    /// whatever answers at the address now, or whether `clawtalk run` would start `server`.
    static func checkSTT(
        _ settings: STTSettings, service: ServiceStatus? = nil, paths: XDGPaths = XDGPaths(),
        server: WyomingServerProcess.Configuration = SpeechServerSupervisor.installedServer(paths: XDGPaths())
    ) async -> DoctorCheck {
        let name = "speech-to-text"
        guard settings.engine == .wyoming else {
            return DoctorCheck(name: name, status: .ok, detail: "engine \(settings.engine.rawValue) (no server needed)")
        }
        let address = settings.address(paths: paths)
        if let running = service?.speechServer {
            switch (running.role, running.ready) {
            case (.supervised, true), (.external, true):
                return DoctorCheck(name: name, status: .ok, detail: "Wyoming server: " + running.summary)
            case (.supervised, false):
                return DoctorCheck(
                    name: name, status: .warn, detail: "Wyoming server: " + running.summary,
                    fix: "wait for it to load, or read why it stopped: journalctl --user -u clawtalk | grep stt.server")
            case (.external, false), (.none, _):
                return DoctorCheck(
                    name: name, status: .warn,
                    detail: "Wyoming server: \(running.summary) (PocketSphinx transcribes meanwhile)",
                    fix: Self.sttFix(settings))
            }
        }
        if settings.usesOwnServer {
            // The node's own socket: only 'clawtalk run' serves it, and nothing else is looked for.
            if let notInstalled = server.notInstalledReason {
                return DoctorCheck(
                    name: name, status: .fail, detail: "no Wyoming server to start: \(notInstalled)",
                    fix: Self.sttFix(settings, notInstalled: notInstalled))
            }
            return DoctorCheck(
                name: name, status: .ok,
                detail: "'clawtalk run' starts the installed server on \(address) (stt.server auto: "
                    + "\(server.executable))")
        }
        do {
            let info = try await WyomingClient(address: address).describe(timeout: .seconds(3))
            let programs = info.asr.map { program in
                program.name
                    + (program.models.isEmpty ? "" : " (" + program.models.map(\.name).joined(separator: ", ") + ")")
            }
            return DoctorCheck(
                name: name, status: .ok,
                detail:
                    "Wyoming server at \(address) (external): \(programs.isEmpty ? "no ASR programs listed" : programs.joined(separator: "; "))"
            )
        } catch {
            let canStart = SpeechServerPlan.decide(
                mode: settings.server, answered: false, isLocal: address.isLocal,
                notInstalled: server.notInstalledReason)
            if canStart == .launch {
                return DoctorCheck(
                    name: name, status: .ok,
                    detail: "no Wyoming server at \(address) now; 'clawtalk run' starts the installed one "
                        + "(stt.server auto: \(server.executable))")
            }
            return DoctorCheck(
                name: name, status: .fail, detail: "Wyoming server at \(address) did not answer: \(error)",
                fix: Self.sttFix(settings, notInstalled: server.notInstalledReason))
        }
    }

    /// What to do when no Wyoming server can be used.
    static func sttFix(_ settings: STTSettings, notInstalled: String? = nil) -> String {
        switch settings.server {
        case .auto where notInstalled != nil:
            return
                "install it with \(SpeechSetup.command()) (\(notInstalled ?? "")), or point stt.wyomingHost/stt.wyomingPort "
                + "(or stt.wyomingSocket) at a running one"
        case .auto, .external:
            return "start it: systemctl --user enable --now clawtalk-stt ('clawtalk service install' writes the unit), "
                + "or set stt.wyomingHost/stt.wyomingPort or stt.wyomingSocket (stt.server: \(settings.server.rawValue))"
        case .off:
            return "set stt.server to auto so that 'clawtalk run' starts the installed server"
        }
    }

    /// Reachability and TLS of the gateway `clawtalk run` would use.
    static func checkGateway(settings: Settings, store: GatewayStore?) async -> DoctorCheck {
        let name = "gateway"
        let target: GatewayTarget?
        do {
            target = try store.flatMap { try GatewayTarget.resolve(settings: settings.gateway, store: $0) }
        } catch {
            return DoctorCheck(
                name: name, status: .fail, detail: "\(error)",
                fix: "correct gateway.url, or pair again with 'clawtalk pair'")
        }
        guard let target else {
            return DoctorCheck(
                name: name, status: .warn, detail: "none configured",
                fix:
                    "pair with 'clawtalk pair <setup code>' (run 'openclaw qr' on the gateway host) or 'clawtalk discover'"
            )
        }
        let url = target.endpoint.urlString
        guard target.endpoint.isSecure else {
            return await checkPlain(url: url)
        }
        let observed: TLSFingerprint
        do {
            observed = try await TLSFingerprintProbe.fingerprint(url: url, timeout: .seconds(3))
        } catch {
            return DoctorCheck(
                name: name, status: .fail, detail: "\(url) is unreachable: \(error)",
                fix: "start the gateway (openclaw gateway status on its host) and check the URL, firewall and VPN")
        }
        let pin = target.configuredPin ?? (try? store?.pin(for: target.key))??.fingerprint
        if let pin {
            guard pin == observed else {
                return DoctorCheck(
                    name: name, status: .fail,
                    detail: "\(url): TLS certificate \(observed) does not match the pin \(pin)",
                    fix: "if the gateway's certificate changed on purpose, forget it ('clawtalk gateways forget "
                        + "\(target.key)') and pair again; otherwise something intercepts the connection")
            }
            return DoctorCheck(name: name, status: .ok, detail: "\(url) reachable; TLS certificate matches the pin")
        }
        let trusted = await checkPlain(url: url)
        guard trusted.status == .ok else {
            return DoctorCheck(
                name: name, status: .fail, detail: "\(url): \(trusted.detail)",
                fix: "the certificate is not trusted by the system; after checking \(observed) on the gateway host, "
                    + "pin it: clawtalk pair --gateway-url \(url) --tls-fingerprint \(observed)")
        }
        return DoctorCheck(name: name, status: .ok, detail: "\(url) reachable; TLS trusted by the system (no pin)")
    }

    /// Opens and closes a WebSocket to `url` (no frames are sent).
    private static func checkPlain(url: String) async -> DoctorCheck {
        do {
            let client = try WebSocketClient(configuration: WebSocketConfiguration(url: url, pingIntervalSeconds: 0))
            defer { client.shutdown() }
            try await client.connect(timeout: .seconds(3))
            client.close()
            return DoctorCheck(name: "gateway", status: .ok, detail: "\(url) reachable")
        } catch {
            return DoctorCheck(
                name: "gateway", status: .fail, detail: "\(url) is unreachable: \(error)",
                fix: "start the gateway (openclaw gateway status on its host) and check the URL, firewall and VPN")
        }
    }

    /// Pairing and the declared commands, from the running service's status, else the store.
    static func checkPairing(service: ServiceStatus?, settings: Settings, store: GatewayStore?) -> DoctorCheck {
        let name = "pairing"
        if let service {
            let node = service.node
            if let pairing = node.pairing {
                return DoctorCheck(
                    name: name, status: .fail,
                    detail: "request \(pairing.requestId ?? "(no id)") for device \(pairing.deviceId) awaits approval",
                    fix: "on the gateway host run: \(pairing.approvalCommand)")
            }
            if let pause = node.pause {
                return DoctorCheck(
                    name: name, status: .fail, detail: "node connection paused: \(pause.code): \(pause.message)",
                    fix: pause.nextStep)
            }
            let commands = service.commands.isEmpty ? "none" : service.commands.joined(separator: ", ")
            guard node.state == "connected" else {
                return DoctorCheck(
                    name: name, status: .warn, detail: "node \(node.state): \(node.summary)",
                    fix: "see 'clawtalk status'; the service retries on its own")
            }
            return DoctorCheck(
                name: name, status: .ok,
                detail: "node connected; declared commands: \(commands) (commands awaiting approval show in "
                    + "'openclaw nodes pending' on the gateway host)")
        }
        guard let store, let target = try? GatewayTarget.resolve(settings: settings.gateway, store: store) else {
            return DoctorCheck(
                name: name, status: .warn, detail: "no gateway", fix: "pair with 'clawtalk pair <setup code>'")
        }
        let roles = (try? store.list().first { $0.key == target.key }?.tokenRoles) ?? nil ?? []
        guard roles.contains("node") else {
            return DoctorCheck(
                name: name, status: .warn, detail: "no device token for \(target.key) yet (not paired or not approved)",
                fix: "pair with 'clawtalk pair <setup code>', then approve the request on the gateway host")
        }
        return DoctorCheck(
            name: name, status: .ok,
            detail:
                "device token stored for \(target.key) (roles: \(roles.joined(separator: ", "))); service not running",
            fix: nil)
    }

    private static func rounded(_ value: Double) -> String {
        value.isFinite ? String(format: "%.1f", value) : "-inf"
    }
}
