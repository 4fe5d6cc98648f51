import ClawTalkNode
import ClawTalkSpeech
import ClawTalkSupport

extension DoctorCommand {
    /// Which keyword scorer voice wake uses: the running service's when `service` is given, else
    /// whatever answers at the configured address now, or whether `clawtalk run` would start
    /// `server` (on its own socket when no address is configured). Never a failure: without a
    /// scorer PocketSphinx spots the triggers (worse).
    static func checkWakeScorer(
        _ settings: WakeSettings, service: ServiceStatus? = nil, paths: XDGPaths = XDGPaths(),
        server: WyomingServerProcess.Configuration
    ) async -> DoctorCheck {
        let name = "wake scorer"
        guard settings.enabled else { return DoctorCheck(name: name, status: .ok, detail: "voice wake is off") }
        guard settings.engine == .auto, settings.scorer != .off else {
            return DoctorCheck(
                name: name, status: .ok,
                detail: "not used (wake.engine \(settings.engine.rawValue), wake.scorer \(settings.scorer.rawValue))")
        }
        let fallback = "PocketSphinx spots the triggers meanwhile, and misses more"
        if let running = service?.wakeScorer {
            return running.ready
                ? DoctorCheck(name: name, status: .ok, detail: "Whisper keyword scorer: " + running.summary)
                : DoctorCheck(
                    name: name, status: .warn, detail: "Whisper keyword scorer: \(running.summary) (\(fallback))",
                    fix: "read why: journalctl --user -u clawtalk | grep wake.server")
        }
        let address = settings.address(paths: paths)
        if !settings.usesOwnServer,
            let info = try? await WyomingClient(address: address).describe(timeout: .seconds(3)), !info.wake.isEmpty
        {
            return DoctorCheck(
                name: name, status: .ok, detail: "\(info.summary ?? "a wake server") at \(address) (external)")
        }
        let decision = SpeechServerPlan.decide(
            mode: settings.scorer, own: settings.usesOwnServer, answered: false, isLocal: address.isLocal,
            notInstalled: server.notInstalledReason)
        if decision == .launch {
            return DoctorCheck(
                name: name, status: .ok,
                detail: settings.usesOwnServer
                    ? "'clawtalk run' starts the installed one on \(address) (\(server.executable))"
                    : "none at \(address) now; 'clawtalk run' starts the installed one (\(server.executable))")
        }
        let reason: String
        if case .none(let why) = decision { reason = why } else { reason = "wake.scorer is off" }
        return DoctorCheck(
            name: name, status: .warn, detail: "no keyword scorer at \(address): \(reason) (\(fallback))",
            fix: server.notInstalledReason != nil
                ? "install it with \(SpeechSetup.command())"
                : "start clawtalk-wake there, or set wake.scorerHost/wake.scorerPort or wake.scorerSocket")
    }
}
