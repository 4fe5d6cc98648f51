public import ClawTalkSupport
import Foundation

/// Keeps a Wyoming speech-to-text server available to `clawtalk run` (`stt.server`).
///
/// - `auto` (default): a server that answers at `stt.wyomingHost:stt.wyomingPort` is used as it
///   is and watched. When none answers and the address is on this machine, the
///   `wyoming-faster-whisper` that `scripts/setup` installed is started on that port with the
///   arguments of `config/clawtalk-stt.service` (loopback only, 5 steps nicer) as a
///   ``ChildProcess``: its own process group, killed with this process however it ends. Its
///   output becomes `stt.server.log` events, transcripts redacted like the node's own. A server
///   that dies is restarted after a ``RestartBackoff`` delay, and its exit and last lines are
///   logged (`stt.server.exited`).
/// - `external`: only watched, for the status.
/// - `off`: nothing.
///
/// Nobody waits for it: until the server answers, the transcriber chain falls back to
/// PocketSphinx by itself, and uses Whisper from the first request after it answers. Cancelling
/// ``run()`` stops the child (SIGTERM to its group, SIGKILL after 2 s) without holding the
/// caller; ``status`` publishes every change.
public actor SpeechServerSupervisor {
    /// How often a server run by someone else is probed again.
    public static let watchInterval: Duration = .seconds(30)

    /// The settings (`stt.server`, `stt.wyomingHost`, `stt.wyomingPort`).
    public let settings: STTSettings
    /// What is started in `auto` mode (its port is replaced by `stt.wyomingPort`).
    public let server: WyomingServerProcess.Configuration
    /// Every change of the status, newest first for new subscribers.
    public nonisolated let status = LatestValueBroadcast<SpeechServerStatus>()
    private let logger: Logger
    private let probeTimeout: Duration
    private var lastNone: String?

    /// A supervisor for `settings`; `server` is the installed server by default.
    public init(
        settings: STTSettings, server: WyomingServerProcess.Configuration? = nil, logger: Logger,
        probeTimeout: Duration = .seconds(1)
    ) {
        self.settings = settings
        var server = server ?? Self.installedServer(paths: XDGPaths())
        server.port = settings.wyomingPort
        self.server = server
        self.logger = logger.child(category: "stt")
        self.probeTimeout = probeTimeout
        status.publish(
            SpeechServerStatus(
                role: .none, ready: false, address: Self.address(settings), detail: "not probed yet"))
    }

    /// The server of `config/clawtalk-stt.service`: Whisper base, int8, 2 threads, Nice=5, the
    /// unit's initial prompt, no default language (each request names one).
    public static func installedServer(paths: XDGPaths) -> WyomingServerProcess.Configuration {
        var configuration = WyomingServerProcess.Configuration.installed(paths: paths)
        configuration.language = nil
        configuration.cpuThreads = 2
        configuration.niceIncrement = 5
        configuration.logFormat = WyomingServerLog.format
        return configuration
    }

    /// Runs until cancelled (see the type's description).
    public func run() async {
        var backoff = RestartBackoff()
        while !Task.isCancelled {
            let answered = await probe()
            let decision = SpeechServerPlan.decide(
                mode: settings.server, answered: answered,
                isLocal: SpeechServerPlan.isLocal(host: settings.wyomingHost),
                notInstalled: server.notInstalledReason)
            switch decision {
            case .stop:
                publish(.none, ready: false, detail: "stt.server is off")
                logger.info("stt.server.off", ["address": .string(Self.address(settings))])
                return
            case .useExternal:
                if status.latest?.role != .external || status.latest?.ready != true {
                    logger.info("stt.server.external", ["address": .string(Self.address(settings))])
                }
                lastNone = nil
                publish(.external, ready: true, detail: "")
                try? await Task.sleep(for: Self.watchInterval)
            case .none(let reason):
                if lastNone != reason {
                    logger.warning(
                        "stt.server.none",
                        [
                            "address": .string(Self.address(settings)), "reason": .string(reason),
                            "fallback": "pocketsphinx",
                        ])
                    lastNone = reason
                }
                publish(settings.server == .external ? .external : .none, ready: false, detail: reason)
                try? await Task.sleep(for: Self.watchInterval)
            case .launch:
                lastNone = nil
                let uptime = await superviseOnce()
                guard !Task.isCancelled else { return }
                let delay = backoff.delay(after: uptime)
                let detail = status.latest?.detail ?? "stopped"
                publish(.supervised, ready: false, detail: "\(detail); restarting in \(delay)")
                logger.notice("stt.server.restarting", ["inMs": .int(Int(delay.inSeconds * 1000))])
                try? await Task.sleep(for: delay)
            }
        }
    }

    // MARK: - Private

    /// Starts the server, waits while it runs and returns how long it lived; stops it when
    /// cancelled.
    private func superviseOnce() async -> Duration {
        let launched = ContinuousClock.now
        publish(.supervised, ready: false, detail: "starting")
        logger.info(
            "stt.server.starting",
            ["executable": .string(server.executable), "address": .string(Self.address(settings))])
        let process: WyomingServerProcess
        do {
            process = try await WyomingServerProcess.start(server, onOutput: WyomingServerLog.forwarder(logger))
        } catch is CancellationError {
            return launched.duration(to: .now)
        } catch {
            logger.error("stt.server.failed", ["error": .string("\(error)")])
            publish(.supervised, ready: false, detail: "failed to start")
            return launched.duration(to: .now)
        }
        publish(.supervised, ready: true, pid: process.processIdentifier, detail: "")
        logger.info(
            "stt.server.ready",
            [
                "pid": .int(Int(process.processIdentifier)), "address": .string(Self.address(settings)),
                "startupMs": .int(Int(process.startupTime.inSeconds * 1000)),
                "model": .string(process.info.summary ?? "unknown"),
            ])
        guard let exit = await process.exited() else {
            // Cancelled: the service is stopping. The stop goes on on its own thread.
            logger.info("stt.server.stopping", ["pid": .int(Int(process.processIdentifier))])
            await process.stopAndWait(grace: .seconds(2))
            return launched.duration(to: .now)
        }
        let lines = process.recentOutput.suffix(3).joined(separator: " | ")
        logger.error(
            "stt.server.exited",
            [
                "pid": .int(Int(process.processIdentifier)), "exit": .string("\(exit)"),
                "uptimeS": .int(Int(launched.duration(to: .now).inSeconds)),
                "lastOutput": .string(WyomingServerLog.redactingTranscripts(lines, logger: logger)),
            ])
        publish(.supervised, ready: false, detail: "exited (\(exit))")
        return launched.duration(to: .now)
    }

    private func probe() async -> Bool {
        guard settings.server != .off else { return false }
        let client = WyomingClient(host: settings.wyomingHost, port: settings.wyomingPort, connectTimeout: probeTimeout)
        guard let info = try? await client.describe(timeout: probeTimeout) else { return false }
        return !info.asr.isEmpty
    }

    private func publish(_ role: SpeechServerStatus.Role, ready: Bool, pid: Int32? = nil, detail: String) {
        let next = SpeechServerStatus(
            role: role, ready: ready, address: Self.address(settings), pid: pid, detail: detail)
        if status.latest != next { status.publish(next) }
    }

    private static func address(_ settings: STTSettings) -> String {
        "\(settings.wyomingHost):\(settings.wyomingPort)"
    }
}
