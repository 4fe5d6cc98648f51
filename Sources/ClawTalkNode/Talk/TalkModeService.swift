package import ClawTalkDesktop
package import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
package import ClawTalkTalk

/// Talk mode inside `clawtalk run` (talk.md §5): one ``TalkModeController`` for the
/// service's lifetime over the shared capture (``Microphone``, through the audio front
/// end: AEC, VAD, half-duplex silencing), the `stt.*` transcriber, and `run`'s delivery and speech.
///
/// - `clawtalk talk on|off|toggle|status` arrive through the control socket (``handle(_:)``).
/// - The operator session's `talk.mode` events turn it on and off; phase changes are reported.
/// - Talk mode claims the microphone from voice wake through `microphone` (the node's
///   ``MicrophoneClaims``), which pauses it for push-to-talk; ``enter(firstTranscript:)`` is the
///   seam for `wake.startsTalk`.
/// - Barge-in when `talk.interruptOnSpeech` and the front end controls echo; else half-duplex.
package final class TalkModeService: GatewaySessionObserver {
    /// The state machine's owner.
    package let controller: TalkModeController
    private let logger: Logger
    /// Realtime Talk over the relay, when the user opted in (talk.md §9.2).
    private let realtime: RealtimeTalkRunner?
    /// Entries started from a wake command (``enterLater(firstTranscript:)``): children of the
    /// service, not loose tasks.
    private let children = OwnedTaskGroup()

    /// The service for `settings`. `echoControlled` is the front end's (AEC active or output
    /// isolated); `pauseReply` pauses playback for the barge-in fast path (resumed when the check finds no interruption)
    /// and `replySilentSince` tells when the pause took effect (capture clock).
    init(
        settings: Settings, environment: [String: String], logger: Logger, capturing: any UtteranceCapturing,
        transcriber: any Transcriber, delivery: any TranscriptDelivering, speech: SpeechOutput?, echoControlled: Bool,
        pauseReply: @escaping @Sendable (Bool) -> Void = { _ in },
        replySilentSince: (@Sendable () -> UInt64?)? = nil,
        microphone: MicrophoneClaims? = nil,
        realtimeAudio: (microphone: any RealtimeMicrophone, speaker: any RealtimeSpeaker)? = nil,
        status: VoiceStatusTap? = nil
    ) {
        self.logger = logger.child(category: "talk.runtime")
        let locale = GatewayConnectionFactory.locale(environment: environment)
        let configuration = TalkModeConfiguration(settings: settings, locale: locale, echoControlled: echoControlled)
        let hooks = TalkModeHooks(
            microphone: microphone, pauseReply: pauseReply,
            resetSpeechSession: { await speech?.resetTalkSession() }, replySilentSince: replySilentSince)
        controller = TalkModeController(
            capturing: capturing, transcriber: transcriber, delivery: delivery,
            speech: speech ?? NoSpeechOutput(), hooks: hooks, configuration: configuration, logger: logger)
        if settings.talk.realtimeRelay, let realtimeAudio {
            realtime = RealtimeTalkRunner(
                settings: settings, locale: locale, onset: configuration, controller: controller,
                microphone: realtimeAudio.microphone, speaker: realtimeAudio.speaker, status: status, logger: logger)
        } else {
            realtime = nil
        }
        self.logger.info(
            "talk.configured",
            [
                "bargeIn": .string(configuration.bargeIn.rawValue),
                "silenceWindowS": .double(configuration.silenceWindow),
                "idleTimeoutS": .double(configuration.idleTimeout ?? 0),
                "realtimeRelay": .bool(realtime != nil),
            ])
    }

    /// Turns Talk mode on; `firstTranscript` (a wake command) is sent as the first turn.
    func enter(firstTranscript: String? = nil) async {
        await controller.enter(source: firstTranscript == nil ? .local : .wake, firstTranscript: firstTranscript)
    }

    /// Turns Talk mode on beside the caller, not in its call: voice wake's command hook, since
    /// entering Talk suspends wake.
    func enterLater(firstTranscript: String) {
        children.spawn { await self.enter(firstTranscript: firstTranscript) }
    }

    /// Answers a `talk.*` control-socket request with the resulting state.
    package func handle(_ command: ControlRequest.Command) async -> ControlResponse {
        switch command {
        case .talkOn: await controller.enter(source: .local)
        case .talkOff: await controller.exit(source: .local)
        case .talkToggle: await controller.toggle()
        case .talkStatus: break
        case .start, .stop, .toggle, .cancel, .once: return .failure("INVALID_REQUEST: not a talk command")
        }
        let phase = await controller.phase
        logger.info("talk.control", ["command": .string(command.rawValue), "phase": .string(phase.rawValue)])
        return .talk(enabled: phase != .idle, phase: phase.rawValue)
    }

    /// Follows `replies` (speaking phases, echo guard) until cancelled, then ends Talk mode.
    package func run(replies: ReplyServices) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.onEntry { await replies.refreshTalkConfig() } }
            group.addTask { await self.realtime?.run() }
            await controller.follow(speaker: replies.speaker, tracker: replies.tracker)
            group.cancelAll()
            await controller.shutdown()
        }
    }

    /// Runs `action` each time Talk mode is entered (from off to on, whoever turned it on: the
    /// CLI, a wake word or the gateway's toggle), until cancelled.
    func onEntry(_ action: @Sendable () async -> Void) async {
        var wasOff = true  // the stream starts with the current phase
        for await phase in await controller.phases() {
            let off = phase == .idle
            if wasOff, !off { await action() }
            wasOff = off
        }
    }

    /// Applies the gateway's `talk.config`.
    func updateTalkConfig(_ config: TalkConfig) async {
        realtime?.update(config)
        await controller.updateTalkConfig(config)
    }

    package func nodeSessionStarted(_ session: NodeSession, gatewayKey: String) async {}

    package func operatorSessionStarted(_ session: OperatorSession) async {
        realtime?.attach(operator: session)
        await controller.attach(operator: session)
    }

    package func sessionEnded() async {
        realtime?.attach(operator: nil)
        await controller.attach(operator: nil)
    }
}
