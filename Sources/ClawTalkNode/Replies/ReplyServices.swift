package import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
package import ClawTalkTalk
import Synchronization

/// The transcript and reply pipeline of `clawtalk run` (talk.md §3, §4, §7): one
/// ``TranscriptDelivery`` (routes and the per-gateway outbox), one ``ReplyTracker``, one
/// ``SpeechOutput`` and the ``ReplySpeaker`` between them, attached to the current gateway's
/// sessions as ``GatewayService`` starts and ends them. `talk.config` is read after each
/// operator `hello-ok` and on entering Talk mode (``refreshTalkConfig()``; session key, voice
/// aliases, Talk settings). Push-to-talk, voice wake and Talk mode
/// deliver through ``delivery`` and stop speech through ``speech``.
package final class ReplyServices: GatewaySessionObserver {
    /// Where transcripts go.
    let delivery: TranscriptDelivery
    /// Follows replies.
    let tracker: ReplyTracker
    /// Speaks them.
    let speech: SpeechOutput
    /// Connects the two.
    let speaker: ReplySpeaker
    /// The `gateway` speech-to-text engine (talk.md §9.1), following the operator session.
    package let relay: GatewayRelayTranscriber
    private let logger: Logger
    private let configSync = Mutex<Task<Void, Never>?>(nil)
    private let configListener = Mutex<ClosureBox<@Sendable (TalkConfig) async -> Void>?>(nil)
    private let currentOperator = Mutex<OperatorSession?>(nil)

    /// The pipeline for `settings`, playing through `audio`, with `local` espeak-ng.
    init(
        settings: Settings, store: GatewayStore, state: StateDirectory, audio: any AudioOutput,
        local: (any LocalSynthesizer)?, hostName: String, logger: Logger,
        errorEarcon: @escaping @Sendable () async -> Void = {}
    ) {
        self.logger = logger.child(category: "talk")
        relay = GatewayRelayTranscriber(logger: logger)
        tracker = ReplyTracker(logger: logger)
        delivery = TranscriptDelivery(
            configuration: TranscriptDelivery.Configuration(settings: settings, hostName: hostName), store: store,
            tracker: tracker, logger: logger)
        speech = SpeechOutput(
            audio: audio, local: local, configuration: SpeechOutput.Configuration(settings: settings.tts),
            logger: logger, errorEarcon: errorEarcon)
        speaker = ReplySpeaker(
            tracker: tracker, speech: speech, lastReply: LastReplyStore(directory: state),
            now: DeviceIdentity.currentTimeMs, logger: logger)
    }

    /// Also tells `listener` each `talk.config` read (Talk mode's idle timeout and barge-in).
    func onTalkConfig(_ listener: @escaping @Sendable (TalkConfig) async -> Void) {
        let box = ClosureBox(listener)
        configListener.locked { $0 = box }
    }

    /// Speaks replies until cancelled; a barge-in's interruption goes into the next prompt.
    func run() async {
        let delivery = delivery
        await speech.setInterruptionHandler { seconds in await delivery.recordInterruption(afterSeconds: seconds) }
        await speaker.run()
    }

    package func nodeSessionStarted(_ session: NodeSession, gatewayKey: String) async {
        await tracker.attach(node: session)
        await delivery.attach(gatewayKey: gatewayKey, node: session)
    }

    package func operatorSessionStarted(_ session: OperatorSession) async {
        await tracker.attach(operator: session)
        await delivery.attach(operator: session)
        await speech.attach(operator: session)
        relay.attach(operator: session)
        currentOperator.locked { $0 = session }
        let task = syncTalkConfig(session)
        let previous = configSync.locked { current in
            defer { current = task }
            return current
        }
        previous?.cancel()
    }

    package func sessionEnded() async {
        currentOperator.locked { $0 = nil }
        configSync.locked { task in
            defer { task = nil }
            return task
        }?.cancel()
        await speech.attach(operator: nil)
        relay.attach(operator: nil)
        await tracker.attach(operator: nil)
        await tracker.attach(node: nil)
        await tracker.cancel()
        await delivery.detach()
    }

    /// Reads `talk.config` again now, as on entering Talk mode (talk.md §5.7); nothing
    /// without a connected operator session.
    func refreshTalkConfig() async {
        guard let session = currentOperator.locked({ $0 }), await session.isConnected else { return }
        await readTalkConfig(session, reason: "talk.enter")
    }

    /// Reads `talk.config` (8 s, without secrets) after every operator `hello-ok` (talk.md §5.7).
    private func syncTalkConfig(_ session: OperatorSession) -> Task<Void, Never> {
        // Unstructured on purpose: the caller keeps the handle and cancels it with the session.
        Task {
            for await event in await session.subscribe(events: []) {
                guard case .connected = event else { continue }
                await readTalkConfig(session, reason: "hello-ok")
            }
        }
    }

    /// One `talk.config` read, handed to delivery, speech and the listener.
    private func readTalkConfig(_ session: OperatorSession, reason: String) async {
        do {
            let config = try TalkConfig(json: try await session.call(OperatorMethod.talkConfig.rawValue))
            await delivery.updateTalkConfig(config)
            await speech.updateTalkConfig(config)
            await configListener.locked({ $0 })?.call(config)
            logger.info(
                "talk.config",
                [
                    "reason": .string(reason), "provider": .string(config.provider ?? "-"),
                    "sessionKey": .string(config.sessionMainKey), "aliases": .int(config.voiceAliases.count),
                ])
        } catch {
            logger.warning("talk.config.failed", ["reason": .string(reason), "error": .string("\(error)")])
        }
    }
}
