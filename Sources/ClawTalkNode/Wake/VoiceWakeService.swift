import ClawTalkAudio
import ClawTalkDevices
package import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import Foundation

/// Voice wake inside `clawtalk run` (talk.md §6): builds the ``VoiceWakeController`` from
/// the `wake.*` and `stt.*` settings, feeds it the microphone through the audio front end,
/// follows the gateway's trigger lists on both connections and lends push-to-talk its leases.
///
/// - Triggers (talk.md §6.1): until a list arrives, the list persisted for the gateway, else the
///   defaults; then every `voicewake.get` answer and `voicewake.changed` (operator or node) is
///   applied live. (The persisted list is used at once rather than after 5 s of waiting: wake
///   works from the start, and a gateway list replaces it whenever it comes.)
/// - The microphone is opened when the service starts and retried every
///   ``microphoneRetry`` while it cannot be; the detector is built once it opens. When the
///   engines cannot be built (missing models or runtime) the error is logged and the service
///   idles without wake; push-to-talk is unaffected.
/// - A suspension that comes before the controller exists is applied when it is built.
package actor VoiceWakeService: GatewaySessionObserver, WakeListening {
    /// How the controller's parts are made; tests replace the transcriber or the frames.
    struct Parts: Sendable {
        /// Speech-to-text for the verifier and the command (default: the `stt.*` chain).
        var transcriber: (any Transcriber)?
        /// The microphone frames; default: ``Microphone/wakeFrames()``.
        var frames: (@Sendable () async throws -> AsyncStream<WakeAudioFrame>)?
        /// Plays chimes (default: nothing).
        var playChime: VoiceWakeController.ChimePlayer = { _ in }
        /// Told every controller event (desktop notifications on a wake); default: nothing.
        var onEvent: (@Sendable (VoiceWakeEvent) async -> Void)?

        init(
            transcriber: (any Transcriber)? = nil,
            frames: (@Sendable () async throws -> AsyncStream<WakeAudioFrame>)? = nil,
            playChime: @escaping VoiceWakeController.ChimePlayer = { _ in },
            onEvent: (@Sendable (VoiceWakeEvent) async -> Void)? = nil
        ) {
            self.transcriber = transcriber
            self.frames = frames
            self.playChime = playChime
            self.onEvent = onEvent
        }
    }

    /// Pause between attempts to open the microphone.
    static let microphoneRetry: Duration = .seconds(5)

    let settings: Settings
    let environment: [String: String]
    let store: GatewayStore
    let delivery: any TranscriptDelivering
    let parts: Parts
    let logger: Logger
    private let rootLogger: Logger
    private(set) var controller: VoiceWakeController?
    private var gatewayKey: String?
    private var triggers: [String]
    private var leases = 0
    private var commandHook: VoiceWakeController.CommandHook?
    private var followers: [Task<Void, Never>] = []

    /// The service; `gatewayKey` is the gateway expected first (its persisted triggers apply).
    init(
        settings: Settings, environment: [String: String], store: GatewayStore, delivery: any TranscriptDelivering,
        gatewayKey: String?, logger: Logger, parts: Parts
    ) {
        self.settings = settings
        self.environment = environment
        self.store = store
        self.delivery = delivery
        self.parts = parts
        self.logger = logger.child(category: "wake")
        rootLogger = logger
        self.gatewayKey = gatewayKey
        triggers = Self.fallbackTriggers(store: store, gatewayKey: gatewayKey)
    }

    /// The triggers in use (or to be used once the controller is built).
    var currentTriggers: [String] { triggers }

    /// Takes the microphone from wake (the node's ``MicrophoneClaims``, for push-to-talk or Talk mode).
    package func suspend() async {
        leases += 1
        await controller?.suspend()
    }

    /// Returns a ``suspend()`` lease.
    package func resume() async {
        guard leases > 0 else { return }
        leases -= 1
        await controller?.resume()
    }

    /// Lets Talk mode take wake commands (`wake.startsTalk`); nil delivers them.
    func setCommandHook(_ hook: VoiceWakeController.CommandHook?) async {
        commandHook = hook
        await controller?.setCommandHook(hook)
    }

    /// Runs wake until cancelled.
    func run() async {
        guard settings.wake.enabled else {
            logger.info("wake.disabled", [:])
            return
        }
        guard let frames = await openMicrophone() else { return }
        // Loading the engines blocks for a second or more: on a thread of its own, and a stop
        // does not wait for it (the load finishes there and is dropped).
        let blueprint = Blueprint(
            settings: settings, environment: environment, delivery: delivery, parts: parts, triggers: triggers,
            logger: rootLogger)
        let built: VoiceWakeController?
        do {
            built = try await awaitBlocking("clawtalk-wake-load") { blueprint.build() }
        } catch {
            return  // cancelled: the service is stopping
        }
        guard !Task.isCancelled else { return }
        guard let controller = built else {
            await Self.idle()
            return
        }
        // From here on suspend(), resume() and new lists go to the controller themselves; what
        // came before it existed is applied now (no await between reading and publishing).
        let pendingLeases = leases
        self.controller = controller
        if triggers != blueprint.triggers { await controller.setTriggers(triggers) }
        await controller.setCommandHook(commandHook)
        for _ in 0..<pendingLeases { await controller.suspend() }
        await withDiscardingTaskGroup { group in
            // The event observer is a child: it stops once wake is disabled, and run() waits for it.
            if let onEvent = parts.onEvent {
                group.addTask {
                    for await event in await controller.events() { await onEvent(event) }
                }
            }
            await controller.setEnabled(true)
            let logger = logger
            logger.info(
                "wake.started",
                [
                    "triggers": .string(triggers.joined(separator: ",")),
                    "engine": .string(settings.wake.engine.rawValue),
                ])
            await controller.run(frames)
            if !Task.isCancelled { logger.warning("wake.audio.ended", [:]) }
            await controller.setEnabled(false)
            group.cancelAll()
        }
    }

    // MARK: - Gateway

    package func nodeSessionStarted(_ session: NodeSession, gatewayKey: String) async {
        if gatewayKey != self.gatewayKey {
            self.gatewayKey = gatewayKey
            await use(Self.fallbackTriggers(store: store, gatewayKey: gatewayKey), source: "persisted")
        }
        follow(session.voiceWakeTriggers(), source: "node")
    }

    package func operatorSessionStarted(_ session: OperatorSession) async {
        follow(session.voiceWakeTriggers(), source: "operator")
    }

    package func sessionEnded() async {
        for task in followers { task.cancel() }
        followers.removeAll()
    }

    // MARK: - Private

    private func follow(_ lists: AsyncStream<[String]>, source: String) {
        // Unstructured on purpose: the handle is kept in `followers`, cancelled on detach.
        followers.append(
            Task { [weak self] in
                for await list in lists {
                    await self?.use(list, source: source)
                }
            })
    }

    private func use(_ list: [String], source: String) async {
        let normalized = VoiceWakeTriggers.normalize(list)
        guard normalized != triggers else { return }
        triggers = normalized
        logger.info(
            "wake.triggers.changed",
            ["source": .string(source), "triggers": .string(normalized.joined(separator: ","))])
        await controller?.setTriggers(normalized)
    }

    /// The persisted list of `gatewayKey`, else the defaults.
    static func fallbackTriggers(store: GatewayStore, gatewayKey: String?) -> [String] {
        guard let gatewayKey, let saved = try? store.voiceWakeTriggers(for: gatewayKey), !saved.isEmpty else {
            return VoiceWakeTriggers.defaults
        }
        return VoiceWakeTriggers.normalize(saved)
    }

    /// The frames, retrying until the microphone opens; nil when cancelled first.
    private func openMicrophone() async -> AsyncStream<WakeAudioFrame>? {
        guard let source = parts.frames else {
            logger.error("wake.unavailable", ["reason": "no microphone source"])
            return nil
        }
        var logged = false
        while !Task.isCancelled {
            do {
                return try await source()
            } catch is CancellationError {
                // The service is stopping (the microphone closed): not a microphone fault.
                return nil
            } catch {
                if !logged {
                    logger.error(
                        "wake.microphone.unavailable",
                        ["error": .string("\(error)"), "retry": .string("every \(Self.microphoneRetry)")])
                    logged = true
                }
                try? await Task.sleep(for: Self.microphoneRetry)
            }
        }
        return nil
    }

    private static func idle() async {
        await untilCancelled()
    }
}

/// What building a ``VoiceWakeController`` takes (built off the cooperative pool).
private struct Blueprint: Sendable {
    let settings: Settings
    let environment: [String: String]
    let delivery: any TranscriptDelivering
    let parts: VoiceWakeService.Parts
    let triggers: [String]
    let logger: Logger

    /// The controller, or nil (logged) when the engines cannot be built.
    func build() -> VoiceWakeController? {
        let selection = KeywordSpotter.Selection(rawValue: settings.wake.engine.rawValue) ?? .auto
        let wakeLogger = logger.child(category: "wake")
        do {
            var factory = try WakeDetectorFactory.load(
                selection: selection, thresholds: settings.wake.thresholds, environment: environment
            ) { wakeLogger.notice("wake.engine.notice", ["reason": .string($0)]) }
            factory.scorer = WakeDetectorFactory.scorer(
                settings.wake, selection: selection, thresholds: settings.wake.thresholds,
                paths: XDGPaths(environment: environment))
            factory.onScorerLink = { event in
                switch event {
                case .connected(let address):
                    wakeLogger.info("wake.scorer.connected", ["address": .string(address)])
                case .lost(let reason):
                    wakeLogger.notice(
                        "wake.scorer.unavailable", ["reason": .string(reason), "fallback": "pocketsphinx"])
                }
            }
            let plan = factory.plan(triggers: triggers)
            if plan.microWakeWord.isEmpty, plan.pocketSphinx.isEmpty {
                // Kept running: a later trigger list may have a usable engine.
                wakeLogger.error(
                    "wake.unavailable",
                    [
                        "reason": .string("no engine for any trigger with wake.engine=\(selection.rawValue)"),
                        "triggers": .string(triggers.joined(separator: ",")),
                    ])
            } else if !plan.unsupported.isEmpty {
                wakeLogger.warning(
                    "wake.triggers.unsupported",
                    [
                        "triggers": .string(plan.unsupported.joined(separator: ",")),
                        "engine": .string(selection.rawValue),
                    ])
            }
            let transcriber =
                parts.transcriber
                ?? TranscriberSelector.transcriber(
                    for: settings.stt, paths: XDGPaths(environment: environment), logger: logger)
            let language = settings.stt.language ?? GatewayConnectionFactory.locale(environment: environment)
            let verifier = WakeDetectorFactory.verifier(transcriber: transcriber, language: language)
            let detector = try factory.detector(triggers: triggers, verifier: verifier)
            wakeLogger.info(
                "wake.engines",
                [
                    "microwakeword": .string(plan.microWakeWord.joined(separator: ",")),
                    "whisper": .string(plan.scorer.joined(separator: ",")),
                    "pocketsphinx": .string(plan.pocketSphinx.joined(separator: ",")),
                    "verifier": .string(transcriber.name),
                ])
            return VoiceWakeController(
                detector: detector, transcriber: transcriber, delivery: delivery,
                configuration: .init(language: language), logger: logger, playChime: parts.playChime)
        } catch {
            wakeLogger.error("wake.unavailable", ["error": .string("\(error)")])
            return nil
        }
    }
}

extension VoiceWakeService {
    /// The service of `clawtalk run`: frames from `capturing` (through the front end), chimes
    /// on `playback`, speech-to-text from `transcriber` (default: a `stt.*` chain of its own);
    /// `onEvent` sees every controller event.
    static func live(
        settings: Settings, environment: [String: String], store: GatewayStore, delivery: any TranscriptDelivering,
        capturing: Microphone, playback: PlaybackController, echoControlled: Bool, gatewayKey: String?,
        transcriber: (any Transcriber)? = nil, logger: Logger,
        onEvent: (@Sendable (VoiceWakeEvent) async -> Void)? = nil
    ) -> VoiceWakeService {
        let chimes = WakeChimes(
            settings: settings.wake, echoControlled: echoControlled, environment: environment,
            logger: logger.child(category: "wake"))
        return VoiceWakeService(
            settings: settings, environment: environment, store: store, delivery: delivery, gatewayKey: gatewayKey,
            logger: logger,
            parts: Parts(
                transcriber: transcriber, frames: { try await capturing.wakeFrames() },
                playChime: chimes.player(playback), onEvent: onEvent))
    }
}
