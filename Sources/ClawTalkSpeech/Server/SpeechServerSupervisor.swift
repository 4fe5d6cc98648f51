public import ClawTalkSupport
import Foundation

/// Keeps a Wyoming server available to `clawtalk run`: the speech-to-text server (`stt.server`,
/// events `stt.server.*`) or the wake-word keyword scorer (`wake.scorer`, events `wake.server.*`),
/// each described by a ``Role``.
///
/// - `auto` (default) with no address configured: the server that `scripts/setup` installed
///   (`clawtalk-speech`, else `wyoming-faster-whisper` with the arguments of
///   `config/clawtalk-stt.service`) is started on the node's own Unix socket,
///   `$XDG_RUNTIME_DIR/clawtalk/speech.sock` (`wake.sock` for the scorer) in a 0700 directory,
///   so only this user reaches it. Nothing else is ever used: the socket is not probed for a
///   server someone else started, and no TCP port is opened.
/// - `auto` with an address configured (`stt.wyomingHost`/`stt.wyomingPort`/`stt.wyomingSocket`):
///   a server that answers there is used as it is and watched; when none answers and the address
///   is on this machine, the installed server is started there.
///
/// A started server runs 5 steps nicer as a ``ChildProcess``: its own process group, killed with
/// this process however it ends. Its
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
    /// Which server, where, and who runs it.
    public struct Role: Sendable, Hashable {
        /// The event prefix and log category: `stt` or `wake`.
        public var name: String
        /// Who runs it.
        public var mode: SpeechServerMode
        /// Where it answers.
        public var address: WyomingAddress
        /// Whether ``address`` is the node's own private socket (`auto` with no address
        /// configured): started, never probed for someone else's server.
        public var own: Bool
        /// What the node does without it, for the log (`pocketsphinx`).
        public var fallback: String

        /// A role; `own` as described there.
        public init(name: String, mode: SpeechServerMode, address: WyomingAddress, own: Bool, fallback: String) {
            self.name = name
            self.mode = mode
            self.address = address
            self.own = own
            self.fallback = fallback
        }

        /// The speech-to-text server of `stt.*`; `paths` locate the node's own socket.
        public static func speechToText(_ settings: STTSettings, paths: XDGPaths) -> Role {
            Role(
                name: "stt", mode: settings.server, address: settings.address(paths: paths),
                own: settings.usesOwnServer, fallback: "pocketsphinx")
        }

        /// The keyword scorer of `wake.*`; `paths` locate the node's own socket.
        public static func wakeScorer(_ settings: WakeSettings, paths: XDGPaths) -> Role {
            Role(
                name: "wake", mode: settings.scorer, address: settings.address(paths: paths),
                own: settings.usesOwnServer, fallback: "pocketsphinx")
        }
    }

    /// How often a server run by someone else is probed again.
    public static let watchInterval: Duration = .seconds(30)

    /// Which server this is.
    public let role: Role
    /// What is started in `auto` mode (its address is replaced by the role's).
    public let server: WyomingServerProcess.Configuration
    /// Every change of the status, newest first for new subscribers.
    public nonisolated let status = LatestValueBroadcast<SpeechServerStatus>()
    private let logger: Logger
    private let probeTimeout: Duration
    private var lastNone: String?

    /// A supervisor of the speech-to-text server of `settings`; `server` is the installed server
    /// by default; `paths` locate the node's own socket.
    public init(
        settings: STTSettings, server: WyomingServerProcess.Configuration? = nil, paths: XDGPaths = XDGPaths(),
        logger: Logger, probeTimeout: Duration = .seconds(1)
    ) {
        self.init(
            role: .speechToText(settings, paths: paths),
            server: server ?? Self.installedServer(paths: paths, model: settings.model),
            logger: logger, probeTimeout: probeTimeout)
    }

    /// A supervisor of `role`, starting `server` when it is needed.
    public init(
        role: Role, server: WyomingServerProcess.Configuration, logger: Logger, probeTimeout: Duration = .seconds(1)
    ) {
        self.role = role
        var server = server
        server.address = role.address
        self.server = server
        self.logger = logger.child(category: role.name)
        self.probeTimeout = probeTimeout
        status.publish(
            SpeechServerStatus(role: .none, ready: false, address: "\(role.address)", detail: "not probed yet"))
    }

    /// The installed speech server as `run` starts it: `clawtalk-speech` with `model` (else the
    /// server of `config/clawtalk-stt.service`: Whisper base, int8, the unit's initial prompt, no
    /// default language, as each request names one), 2 threads, Nice=5.
    public static func installedServer(paths: XDGPaths, model: STTModel = .tinyEn)
        -> WyomingServerProcess.Configuration
    {
        var configuration = WyomingServerProcess.Configuration.installed(paths: paths, model: model)
        // clawtalk-speech decodes one request at a time on one thread per core it is given;
        // every request names its language (LanguageChainTranscriber), en is only its default.
        if configuration.program != .clawtalkSpeech { configuration.language = nil }
        // One inference thread for clawtalk-speech: its model is shared with the scorer, whose
        // passes run all through speech, and on the 2-core VM one thread was also the faster
        // transcriber (turn corpus, median: tiny.en 117 ms with one, 146 ms with two; base 247
        // against 276 ms).
        configuration.cpuThreads = configuration.program == .clawtalkSpeech ? 1 : 2
        configuration.niceIncrement = 5
        configuration.logFormat = WyomingServerLog.format
        return configuration
    }

    /// The installed `clawtalk-wake` as `run` starts it: one thread, Nice=5.
    public static func installedWakeScorer(paths: XDGPaths) -> WyomingServerProcess.Configuration {
        var configuration = WyomingServerProcess.Configuration.installedWakeScorer(paths: paths)
        configuration.niceIncrement = 5
        configuration.logFormat = WyomingServerLog.format
        return configuration
    }

    /// Runs until cancelled (see the type's description).
    public func run() async {
        var backoff = RestartBackoff()
        while !Task.isCancelled {
            // The own socket is never probed: whatever answered there would not be this node's.
            let answered = role.own ? false : await probe()
            let decision = SpeechServerPlan.decide(
                mode: role.mode, own: role.own, answered: answered, isLocal: role.address.isLocal,
                notInstalled: server.notInstalledReason ?? ownDirectoryProblem())
            switch decision {
            case .stop:
                publish(.none, ready: false, detail: "\(role.name == "stt" ? "stt.server" : "wake.scorer") is off")
                logger.info("\(role.name).server.off", ["address": .string("\(role.address)")])
                return
            case .useExternal:
                if status.latest?.role != .external || status.latest?.ready != true {
                    logger.info("\(role.name).server.external", ["address": .string("\(role.address)")])
                }
                lastNone = nil
                publish(.external, ready: true, detail: "")
                try? await Task.sleep(for: Self.watchInterval)
            case .none(let reason):
                if lastNone != reason {
                    logger.warning(
                        "\(role.name).server.none",
                        [
                            "address": .string("\(role.address)"), "reason": .string(reason),
                            "fallback": .string(role.fallback),
                        ])
                    lastNone = reason
                }
                publish(role.mode == .external ? .external : .none, ready: false, detail: reason)
                try? await Task.sleep(for: Self.watchInterval)
            case .launch:
                lastNone = nil
                let uptime = await superviseOnce()
                guard !Task.isCancelled else { return }
                let delay = backoff.delay(after: uptime)
                let detail = status.latest?.detail ?? "stopped"
                publish(.supervised, ready: false, detail: "\(detail); restarting in \(delay)")
                logger.notice("\(role.name).server.restarting", ["inMs": .int(Int(delay.inSeconds * 1000))])
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
            "\(role.name).server.starting",
            ["executable": .string(server.executable), "address": .string("\(role.address)")])
        let process: WyomingServerProcess
        do {
            process = try await WyomingServerProcess.start(
                server, onOutput: WyomingServerLog.forwarder(logger, name: role.name))
        } catch is CancellationError {
            return launched.duration(to: .now)
        } catch {
            logger.error("\(role.name).server.failed", ["error": .string("\(error)")])
            publish(.supervised, ready: false, detail: "failed to start")
            return launched.duration(to: .now)
        }
        publish(.supervised, ready: true, pid: process.processIdentifier, detail: "")
        logger.info(
            "\(role.name).server.ready",
            [
                "pid": .int(Int(process.processIdentifier)), "address": .string("\(role.address)"),
                "startupMs": .int(Int(process.startupTime.inSeconds * 1000)),
                "model": .string(process.info.summary ?? "unknown"),
            ])
        guard let exit = await process.exited() else {
            // Cancelled: the service is stopping. The stop goes on on its own thread.
            logger.info("\(role.name).server.stopping", ["pid": .int(Int(process.processIdentifier))])
            await process.stopAndWait(grace: .seconds(2))
            return launched.duration(to: .now)
        }
        let lines = process.recentOutput.suffix(3).joined(separator: " | ")
        logger.error(
            "\(role.name).server.exited",
            [
                "pid": .int(Int(process.processIdentifier)), "exit": .string("\(exit)"),
                "uptimeS": .int(Int(launched.duration(to: .now).inSeconds)),
                "lastOutput": .string(WyomingServerLog.redactingTranscripts(lines, logger: logger)),
            ])
        publish(.supervised, ready: false, detail: "exited (\(exit))")
        return launched.duration(to: .now)
    }

    /// For the own socket: its directory, created 0700 (or tightened to it) and owned by this
    /// user, so no other user can reach the socket; nil when it is fine, else why not.
    private func ownDirectoryProblem() -> String? {
        guard role.own, let path = role.address.socketPath else { return nil }
        do {
            _ = try StateDirectory(path: (path as NSString).deletingLastPathComponent, logger: logger)
            return nil
        } catch {
            return "cannot use the socket directory: \(error)"
        }
    }

    private func probe() async -> Bool {
        guard role.mode != .off else { return false }
        let client = WyomingClient(address: role.address, connectTimeout: probeTimeout)
        guard let info = try? await client.describe(timeout: probeTimeout) else { return false }
        return server.program.isOffered(by: info)
    }

    private func publish(_ role: SpeechServerStatus.Role, ready: Bool, pid: Int32? = nil, detail: String) {
        let next = SpeechServerStatus(
            role: role, ready: ready, address: "\(self.role.address)", pid: pid, detail: detail)
        if status.latest != next { status.publish(next) }
    }
}
