import ClawTalkDesktop
import ClawTalkDevices
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import Foundation

/// `clawtalk run`: the voice node service in the foreground (the default subcommand).
public struct RunCommand: Command {
    /// The command name.
    public static let name = "run"
    /// One line for OVERVIEW.
    public static let abstract = "Run the voice node service (foreground; use the systemd user unit for background)."
    /// What the service does and how it stops.
    public static let discussion = """
        Connects to the gateway, listens for the wake word and push-to-talk requests and \
        speaks replies, until SIGTERM or SIGINT. The gateway is gateway.url if set, else the \
        current paired gateway ('clawtalk gateways'). SIGHUP resumes a paused connection and \
        switches to a newly chosen gateway. 'clawtalk status' shows the connection state. Logs \
        go to standard error (the journal under systemd).
        """
    /// Service settings that override the environment and the config file.
    public static let options: [OptionSpec] = [
        .option(
            "config", valueName: "path", help: "Configuration file to read.",
            default: "~/.config/clawtalk/config.json5"),
        .option("gateway-url", valueName: "url", help: "WebSocket URL of the gateway (ws:// or wss://)."),
        .option("mic-device", valueName: "name", help: "Sound server source to capture from (see 'clawtalk devices')."),
        .option("snd-device", valueName: "name", help: "Sound server sink to play to (see 'clawtalk devices')."),
        .option(
            "log-level", valueName: "level", help: "Lowest level of log lines to write.", default: "info",
            allowedValues: LogLevel.allCases.map(\.rawValue)),
        .option(
            "log-format", valueName: "format", help: "Format of log lines on standard error.", default: "text",
            allowedValues: ["text", "json"]),
        .flag("log-sensitive", help: "Log transcripts, spoken text and tokens instead of redacting them."),
        .option(
            "debug-audio-dir", valueName: "dir",
            help: "Write the audio before each wake and each utterance to WAV files in this directory."),
    ]

    /// `--config`.
    public var configPath: String?
    /// Settings given as options, by dotted key (`gateway.url`, `log.level`, …).
    public var settingFlags: [String: String]
    /// `--debug-audio-dir`.
    public var debugAudioDir: String?

    /// Reads the arguments (absent options stay unset so lower-precedence settings can apply).
    public init(parsed: ParsedArguments) {
        configPath = parsed.string("config")
        var flags: [String: String] = [:]
        for (option, key) in Self.settingOptions {
            if let value = parsed.string(option) { flags[key] = value }
        }
        if parsed.flag("log-sensitive") { flags["log.sensitive"] = "true" }
        settingFlags = flags
        debugAudioDir = parsed.string("debug-audio-dir")
    }

    /// Options that set a configuration key.
    static let settingOptions: [(option: String, key: String)] = [
        ("gateway-url", "gateway.url"), ("mic-device", "mic.device"), ("snd-device", "speaker.device"),
        ("log-level", "log.level"), ("log-format", "log.format"),
    ]

    /// Runs the service until SIGTERM or SIGINT, logging start and stop to standard error.
    public func run(context: CommandContext) async throws -> Int32 {
        let service = try ServiceEnvironment.load(
            flags: settingFlags, configPath: configPath, environment: context.environment, io: context.io)
        let logger = service.logger.child(category: "service")
        let store = GatewayStore(directory: service.state)
        let factory = GatewayConnectionFactory(
            settings: service.effective.settings, identity: service.identity, store: store,
            logger: service.logger, environment: context.environment)
        let settings = service.effective.settings
        // The front end cancels the echo of everything the playback controller writes (its render
        // tap is the far-end reference); if it cannot be built, capture goes on without it.
        var frontEndSettings = FrontEndSettings(processing: settings.processing, mic: settings.mic)
        frontEndSettings.outputIsolated = settings.speaker.acousticallyIsolated  // headphones: barge-in without AEC
        let frontEnd = try? AudioFrontEnd(settings: frontEndSettings)
        let playback = PlaybackController(sink: settings.speaker.device, renderTap: frontEnd?.renderTap)
        frontEnd?.attach(playback)
        defer { playback.close() }
        let audio = PlaybackAudioOutput(controller: playback)
        let replies = ReplyServices(
            settings: settings, store: store, state: service.state, audio: audio,
            local: EspeakSynthesizer(defaultVoice: settings.tts.espeakVoice),
            hostName: GatewayConnectionFactory.hostName(), logger: service.logger,
            errorEarcon: { await audio.playErrorEarcon() })
        let target = try? GatewayTarget.resolve(settings: factory.settings.gateway, store: store)
        // The status file's level meter and last transcript (clawtalk status --watch).
        let levels = VoiceStatusTap()
        let delivery = StatusNotingDelivery(inner: replies.delivery, tap: levels)
        let capturing = LiveUtteranceCapturing(
            mic: settings.mic, frontEnd: frontEnd, levels: levels, logger: service.logger)
        defer { capturing.stop() }
        // The Whisper server (stt.server): used when one answers, else started and supervised;
        // until it answers, the chain below falls back to PocketSphinx (loaded on first use).
        let speechServer = SpeechServerSupervisor(
            settings: settings.stt,
            server: SpeechServerSupervisor.installedServer(paths: XDGPaths(environment: context.environment)),
            logger: service.logger)
        // The Whisper keyword scorer (wake.scorer), supervised the same way; until it answers,
        // PocketSphinx spots the triggers it would score.
        let wakeScorer = SpeechServerSupervisor(
            role: .wakeScorer(settings.wake),
            server: SpeechServerSupervisor.installedWakeScorer(paths: XDGPaths(environment: context.environment)),
            logger: service.logger)
        // One local speech-to-text chain (Whisper, else PocketSphinx) for voice wake, push-to-talk
        // and Talk turns, so a server that is not up yet is logged once; with stt.engine gateway,
        // turns try the relay first (wake stays local: ambient audio never goes to the gateway).
        let localTranscriber = TranscriberSelector.transcriber(
            for: settings.stt, engine: settings.stt.engine == .gateway ? .wyoming : nil, logger: service.logger)
        let transcriber: any Transcriber =
            settings.stt.engine == .gateway
            ? FallbackTranscriber(primary: replies.relay, fallback: localTranscriber, logger: service.logger)
            : localTranscriber
        // Desktop notifications (notify.enabled): pairing requests, pauses and wakes.
        let notifier = DesktopNotifier(
            enabled: settings.notify.enabled, environment: context.environment, logger: service.logger)
        let wake = VoiceWakeService.live(
            settings: settings, environment: context.environment, store: store, delivery: delivery,
            capturing: capturing, playback: playback, echoControlled: frontEnd?.echoControlled ?? false,
            gatewayKey: target?.key, transcriber: localTranscriber, logger: service.logger
        ) { event in
            if case .accepted(let trigger, _) = event { await notifier.notify(.wake(trigger: trigger)) }
        }
        // Talk mode holds wake off while it runs; push-to-talk pauses both (talk-contract §1).
        let talk = TalkModeService(
            settings: settings, environment: context.environment, logger: service.logger, capturing: capturing,
            transcriber: transcriber, delivery: delivery, speech: replies.speech,
            echoControlled: frontEnd?.echoControlled ?? false, pauseReply: { playback.setPaused($0) },
            replySilentSince: { playback.silentSinceNanoseconds },
            suspendWake: { await wake.suspend() }, resumeWake: { await wake.resume() })
        replies.onTalkConfig { config in await talk.updateTalkConfig(config) }
        if settings.wake.startsTalk {
            // The wake command becomes Talk's first turn; entering Talk suspends wake, so it runs
            // off the wake controller's call.
            await wake.setCommandHook { _, command in
                Task { await talk.enter(firstTranscript: command) }
                return true
            }
        }
        let ptt = PushToTalkService(
            settings: settings, environment: context.environment, logger: service.logger,
            delivery: delivery, speech: replies.speech, frontEnd: frontEnd, capturing: capturing,
            lease: PTTLeaseHooks(wake: wake.leaseHooks, talk: talk.lease), talk: talk,
            transcriber: transcriber)
        let gateway = GatewayService(
            factory: factory, statusFile: StatusFile(environment: context.environment), logger: service.logger,
            configureNode: { session in await ptt.attach(session) },
            observer: GatewaySessionObservers([replies, wake, talk]), notifier: notifier)
        let work: ServiceRunner.Work = {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await speechServer.run() }
                if settings.wake.enabled { group.addTask { await wakeScorer.run() } }
                group.addTask { await gateway.run() }
                group.addTask { await ptt.run() }
                group.addTask { await replies.run() }
                group.addTask { await talk.run(replies: replies) }
                group.addTask { await wake.run() }
                group.addTask { await HeapReport.run(logger: logger) }
                if let frontEnd {
                    // The front end's counters (far-end frames dropped or stale, the echo delay)
                    // beside Talk mode's pauses in the log.
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: .seconds(60))
                            logger.debug("frontend.stats", frontEnd.stats.fields)
                        }
                    }
                }
                group.addTask {
                    await Self.followActivity(ptt: ptt.controller, talk: talk.controller, levels: levels, into: gateway)
                }
                group.addTask {
                    for await status in speechServer.status.subscribe(replayingLatest: true) {
                        await gateway.setSpeechServer(status)
                    }
                }
                group.addTask {
                    for await status in wakeScorer.status.subscribe(replayingLatest: true) {
                        await gateway.setWakeScorer(status)
                    }
                }
            }
        }
        let runner = ServiceRunner(work: work) { event in
            switch event {
            case .started:
                logger.info(
                    "service.started",
                    [
                        "version": .string(ClawTalkVersion.current),
                        "pid": .int(Int(ProcessInfo.processInfo.processIdentifier)),
                        "deviceId": .string(service.identity.deviceId),
                        "config": .string(
                            service.effective.configFileLoaded ? service.effective.configFile : "none"),
                        "gateway": .string(target?.endpoint.urlString ?? "unconfigured"),
                    ])
            case .stopping(.signal(let number)):
                logger.info("service.stopping", ["signal": .string(Self.signalName(number))])
            case .stopping(.finished):
                logger.info("service.stopping", ["reason": "finished"])
            case .stopping(.failed(let message)):
                logger.error("service.stopping", ["reason": "failed", "error": .string(message)])
            case .abandoned:
                // A model load on its own thread, say: it ends with the process.
                logger.notice(
                    "service.stop.abandoned",
                    ["graceMs": .int(Int(ServiceRunner.defaultStopGrace.inSeconds * 1000))])
            }
        }
        return try await runner.run()
    }

    /// Mirrors what owns the microphone into the status file's phase, on transitions only:
    /// push-to-talk first (listening while capturing, thinking while the transcript is finalized
    /// and delivered), else Talk mode's phase, else idle (voice wake listening); and the capture
    /// level and last transcript from `levels`.
    static func followActivity(
        ptt: PTTController, talk: TalkModeController, levels: VoiceStatusTap, into gateway: GatewayService
    ) async {
        var last: VoiceActivity.Phase = .idle
        var lastLevel = -200.0
        // Polls since anything changed: after 2 s of an idle phase and a steady level the poll
        // slows from 10 to 2.5 per second (idle CPU); the first change speeds it up again.
        var quietPolls = 0
        while !Task.isCancelled {
            let phase: VoiceActivity.Phase
            switch await ptt.state {
            case .starting, .capturing: phase = .listening
            case .finalizing: phase = .thinking
            case .idle:
                switch await talk.phase {
                case .idle: phase = .idle
                case .listening: phase = .listening
                case .thinking: phase = .thinking
                case .speaking: phase = .speaking
                }
            }
            var changed = phase != .idle
            if phase != last {
                last = phase
                await gateway.setPhase(phase)
            }
            if let level = levels.takeLevel() {
                if abs(level - lastLevel) >= 3 {
                    lastLevel = level
                    changed = true
                }
                await gateway.setInputLevel(dbfs: level)
            }
            if let transcript = levels.takeTranscript() {
                changed = true
                await gateway.setLastTranscript(transcript)
            }
            quietPolls = changed ? 0 : quietPolls + 1
            try? await Task.sleep(for: .milliseconds(quietPolls >= 20 ? 400 : 100))
        }
    }

    /// `TERM` for `SIGTERM`, `INT` for `SIGINT`, else the number.
    static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGTERM: "TERM"
        case SIGINT: "INT"
        default: String(number)
        }
    }
}
