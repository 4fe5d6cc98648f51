import ClawTalkDesktop
import ClawTalkDevices
import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import Foundation
import Synchronization

/// The live voice node of `clawtalk run`: the gateway connections, the microphone with its echo
/// canceller, voice wake, push-to-talk, Talk mode, replies and the speech servers, composed once
/// from the service's settings and run until SIGTERM or SIGINT.
///
/// Who holds the microphone: push-to-talk over Talk mode over voice wake (talk.md §1).
/// Talk mode suspends wake while it runs; push-to-talk leases the microphone from both.
public struct LiveNode: Sendable {
    let service: ServiceEnvironment
    let target: GatewayTarget?
    let frontEnd: AudioFrontEnd?
    let playback: PlaybackController
    let microphone: Microphone
    let levels: VoiceStatusTap
    let replies: ReplyServices
    let speechServer: SpeechServerSupervisor
    let wakeScorer: SpeechServerSupervisor
    let wake: VoiceWakeService
    let talk: TalkModeService
    let ptt: PushToTalkService
    let gateway: GatewayService

    /// Builds every component for `service`'s settings; `environment` locates the user's
    /// directories, the installed speech servers and the desktop session. Nothing runs yet.
    public static func compose(service: ServiceEnvironment, environment: [String: String]) async -> LiveNode {
        let paths = XDGPaths(environment: environment)
        let sttServer = SpeechServerSupervisor.installedServer(
            paths: paths, model: service.effective.settings.stt.model)
        let settings = Self.sharingSpeechServer(service.effective.settings, sttServer: sttServer, paths: paths)
        let logger = service.logger
        let store = GatewayStore(directory: service.state)
        let factory = GatewayConnectionFactory(
            settings: settings, identity: service.identity, store: store, logger: logger, environment: environment)
        // The front end cancels the echo of everything the playback controller writes (its render
        // tap is the far-end reference); if it cannot be built, capture goes on without it.
        var frontEndSettings = FrontEndSettings(processing: settings.processing, mic: settings.mic)
        frontEndSettings.outputIsolated = settings.speaker.acousticallyIsolated  // headphones: barge-in without AEC
        let frontEnd = try? AudioFrontEnd(settings: frontEndSettings)
        let playback = PlaybackController(sink: settings.speaker.device, renderTap: frontEnd?.renderTap)
        frontEnd?.attach(playback)
        let audio = PlaybackAudioOutput(controller: playback)
        let replies = ReplyServices(
            settings: settings, store: store, state: service.state, audio: audio,
            local: EspeakSynthesizer(defaultVoice: settings.tts.espeakVoice),
            hostName: GatewayConnectionFactory.hostName(), logger: logger,
            errorEarcon: { await audio.playErrorEarcon() })
        let target = try? GatewayTarget.resolve(settings: factory.settings.gateway, store: store)
        // The status file's level meter and last transcript (clawtalk status --watch).
        let levels = VoiceStatusTap()
        let delivery = StatusNotingDelivery(inner: replies.delivery, tap: levels)
        // The microphone (architecture.md §3): its engine, subscriptions, health, and who listens
        // (talk.md §1: push-to-talk over Talk mode over voice wake).
        let microphone = Microphone(mic: settings.mic, frontEnd: frontEnd, levels: levels, logger: logger)
        // The Whisper server (stt.server): by default started and supervised on the node's own
        // socket; until it answers, the chain below falls back to PocketSphinx (loaded on first use).
        let speechServer = SpeechServerSupervisor(
            settings: settings.stt, server: sttServer, paths: paths, logger: logger)
        // The Whisper keyword scorer (wake.scorer), supervised the same way; until it answers,
        // PocketSphinx spots the triggers it would score.
        let wakeScorer = SpeechServerSupervisor(
            role: .wakeScorer(settings.wake, paths: paths),
            server: SpeechServerSupervisor.installedWakeScorer(paths: paths), logger: logger)
        // One local speech-to-text chain (Whisper, else PocketSphinx) for voice wake, push-to-talk
        // and Talk turns, so a server that is not up yet is logged once; with stt.engine gateway,
        // turns try the relay first (wake stays local: ambient audio never goes to the gateway).
        // Each request's language: the gateway's talk.speechLocale, stt.language or the system
        // locale, else en (LanguageChoice), so Whisper never detects it per request.
        let localTranscriber = LanguageChainTranscriber(
            inner: TranscriberSelector.transcriber(
                for: settings.stt, engine: settings.stt.engine == .gateway ? .wyoming : nil, paths: paths,
                logger: logger),
            logger: logger)
        let transcriber: any Transcriber =
            settings.stt.engine == .gateway
            ? FallbackTranscriber(primary: replies.relay, fallback: localTranscriber, logger: logger)
            : localTranscriber
        // Desktop notifications (notify.enabled): pairing requests, pauses and wakes.
        let notifier = DesktopNotifier(enabled: settings.notify.enabled, environment: environment, logger: logger)
        let wake = VoiceWakeService.live(
            settings: settings, environment: environment, store: store, delivery: delivery, capturing: microphone,
            playback: playback, echoControlled: frontEnd?.echoControlled ?? false, gatewayKey: target?.key,
            transcriber: localTranscriber, logger: logger
        ) { event in
            if case .accepted(let trigger, _) = event { await notifier.notify(.wake(trigger: trigger)) }
        }
        let talk = TalkModeService(
            settings: settings, environment: environment, logger: logger, capturing: microphone,
            transcriber: transcriber, delivery: delivery, speech: replies.speech,
            echoControlled: frontEnd?.echoControlled ?? false, pauseReply: { playback.setPaused($0) },
            replySilentSince: { playback.silentSinceNanoseconds },
            microphone: microphone.claims,
            realtimeAudio: (microphone, PlaybackRealtimeSpeaker(controller: playback)), status: levels)
        await microphone.claims.attach(wake: wake, talk: talk.controller)
        replies.onTalkConfig { config in
            localTranscriber.setGatewayLocale(config.speechLocale)
            await talk.updateTalkConfig(config)
        }
        if settings.wake.startsTalk {
            // The wake command becomes Talk's first turn; entering Talk suspends wake, so it runs
            // off the wake controller's call.
            await wake.setCommandHook { _, command in
                talk.enterLater(firstTranscript: command)
                return true
            }
        }
        let ptt = PushToTalkService(
            settings: settings, environment: environment, logger: logger, delivery: delivery,
            speech: replies.speech, frontEnd: frontEnd, capturing: microphone,
            microphone: microphone.claims, talk: talk, transcriber: transcriber)
        let gateway = GatewayService(
            factory: factory, statusFile: StatusFile(environment: environment), logger: logger,
            configureNode: { session in await ptt.attach(session) },
            observer: GatewaySessionObservers([replies, wake, talk]), notifier: notifier)
        return LiveNode(
            service: service, target: target, frontEnd: frontEnd, playback: playback, microphone: microphone,
            levels: levels, replies: replies, speechServer: speechServer, wakeScorer: wakeScorer, wake: wake,
            talk: talk, ptt: ptt, gateway: gateway)
    }

    /// `settings` with voice wake's keyword scorer at the speech-to-text server's address when
    /// both are `auto`, no scorer address is configured, and the installed server is
    /// `clawtalk-speech`, which scores wake words too: one process and one set of runtime
    /// libraries instead of two (issue 32's memory). The scorer's supervisor then only watches
    /// that address (the node's own socket unless the user configured another).
    static func sharingSpeechServer(
        _ settings: Settings, sttServer: WyomingServerProcess.Configuration, paths: XDGPaths
    ) -> Settings {
        guard sttServer.program == .clawtalkSpeech, settings.stt.server == .auto, settings.wake.scorer == .auto,
            settings.wake.configuredAddress == nil
        else { return settings }
        var shared = settings
        switch settings.stt.address(paths: paths) {
        case .unix(let path):
            shared.wake.scorerSocket = path
        case .tcp(let host, let port):
            shared.wake.scorerHost = host
            shared.wake.scorerPort = port
        }
        shared.wake.scorer = .external
        return shared
    }

    /// Runs every component until SIGTERM or SIGINT (or one of them fails), logging the start and
    /// the stop; then closes the microphone and the playback stream. Returns the exit status.
    public func run() async throws -> Int32 {
        let logger = service.logger.child(category: "service")
        let microphone = microphone
        let stopping = Mutex<ContinuousClock.Instant?>(nil)
        defer {
            microphone.stop()
            playback.close()
            // How long the wind-down took in the process (a slow stop's time after this line
            // is the process's exit, not the node's work).
            if let began = stopping.locked({ $0 }) {
                logger.debug("service.stopped", ["windDownMs": .double((ContinuousClock.now - began).inSeconds * 1000)])
            }
        }
        let runner = ServiceRunner(work: { await self.runComponents(logger: logger) }) { event in
            if case .stopping = event { stopping.locked { $0 = $0 ?? .now } }
            self.log(event, logger: logger)
            // The microphone closes at once, beside the components' wind-down rather than after
            // it: its capture thread may be waiting for a sound server that sends nothing yet.
            if case .stopping = event { DispatchQueue.global().async { microphone.stop() } }
        }
        return try await runner.run()
    }

    private func runComponents(logger: Logger) async {
        let settings = service.effective.settings
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await speechServer.run() }
            if settings.wake.enabled { group.addTask { await wakeScorer.run() } }
            group.addTask { await gateway.run() }
            group.addTask { await ptt.run() }
            group.addTask { await replies.run() }
            group.addTask { await talk.run(replies: replies) }
            group.addTask { await wake.run() }
            group.addTask { await HeapReport.run(logger: logger) }
            group.addTask { await microphone.watchHealth(logger: service.logger) }
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

    private func log(_ event: ServiceRunner.Event, logger: Logger) {
        switch event {
        case .started:
            logger.info(
                "service.started",
                [
                    "version": .string(ClawTalkVersion.current),
                    "pid": .int(Int(ProcessInfo.processInfo.processIdentifier)),
                    "deviceId": .string(service.identity.deviceId),
                    "config": .string(service.effective.configFileLoaded ? service.effective.configFile : "none"),
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
                "service.stop.abandoned", ["graceMs": .int(Int(ServiceRunner.defaultStopGrace.inSeconds * 1000))])
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
