import ClawTalkDesktop
import ClawTalkDevices
import ClawTalkGateway
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk

/// Push-to-talk inside `clawtalk run`: one ``PTTController`` for the service's lifetime, its
/// `talk.ptt.*` handlers on every node session (``attach(_:)``), the local control socket for
/// `clawtalk ptt …` and keybindings, the same commands on the session bus
/// (``DBusControlService``), and optional evdev hold-to-talk (`ptt.evdevKey`).
///
/// Wired today: capture from the sound server (``Microphone``), the configured STT
/// chain (`stt.*`), delivery and speech from `run`'s ``ReplyServices`` (chat.send / voice.transcript
/// with the outbox; starting PTT stops the reply being spoken). Without them (tests) delivery is
/// `voice.transcript` on the node connection (``NodeTranscriptDelivery``) and nothing is spoken.
/// `microphone` is the node's ``MicrophoneClaims``: push-to-talk claims it from Talk mode and
/// voice wake; `talk.*`
/// control-socket requests go to `talk` (``TalkModeService``).
package final class PushToTalkService: Sendable {
    /// The state machine's owner.
    let controller: PTTController
    /// The node command handlers.
    let handlers: PTTCommandHandlers
    /// The control socket path.
    let socketPath: String
    /// The hold-to-talk key, if configured and known.
    let evdevKey: EvdevKey?
    private let nodeDelivery: NodeTranscriptDelivery?
    private let capturing: Microphone?
    private let ownsCapturing: Bool
    private let talk: TalkModeService?
    private let logger: Logger
    private let configuredKey: String?
    private let sessionBus: String?

    /// The service for `settings`; `controller` replaces the live one (tests). `capturing` is
    /// shared with Talk mode (one capture engine); without it the service makes its own.
    /// `transcriber` is `run`'s speech-to-text chain (with the gateway relay); default: `stt.*`.
    init(
        settings: Settings, environment: [String: String], logger: Logger, controller: PTTController? = nil,
        delivery: (any TranscriptDelivering)? = nil, speech: (any SpeechStopping)? = nil,
        frontEnd: AudioFrontEnd? = nil, capturing shared: Microphone? = nil,
        microphone: MicrophoneClaims? = nil,
        talk: TalkModeService? = nil, transcriber: (any Transcriber)? = nil
    ) {
        self.talk = talk
        let root = logger
        self.logger = logger.child(category: "ptt")
        let paths = XDGPaths(environment: environment)
        socketPath = settings.ptt.resolvedControlSocket(paths: paths)
        configuredKey = settings.ptt.evdevKey
        sessionBus = DBusLink.sessionBusAddress(environment: environment)
        evdevKey = settings.ptt.evdevKey.flatMap(EvdevKey.init)
        let stopgap =
            delivery == nil ? NodeTranscriptDelivery(sessionKey: settings.talk.sessionKey ?? "main", logger: root) : nil
        nodeDelivery = stopgap
        let delivery: any TranscriptDelivering = delivery ?? stopgap!
        if let controller {
            self.controller = controller
            capturing = nil
            ownsCapturing = false
        } else {
            let capturing = shared ?? Microphone(mic: settings.mic, frontEnd: frontEnd, logger: root)
            self.capturing = capturing
            ownsCapturing = shared == nil
            let locale = GatewayConnectionFactory.locale(environment: environment)
            self.controller = PTTController(
                capturing: capturing,
                transcriber: transcriber
                    ?? TranscriberSelector.transcriber(
                        for: settings.stt, paths: XDGPaths(environment: environment), logger: root),
                delivery: delivery, speech: speech ?? NoSpeechOutput(), microphone: microphone,
                configuration: PTTConfiguration(settings: settings, locale: locale), logger: root)
        }
        handlers = PTTCommandHandlers(controller: self.controller, logger: root)
    }

    /// Registers the `talk.ptt.*` handlers on a new node session and delivers through it.
    func attach(_ session: NodeSession) async {
        await handlers.register(on: session)
        await nodeDelivery?.attach(session)
    }

    /// Answers one control-socket request.
    func handle(_ request: ControlRequest) async -> ControlResponse {
        if request.command.isTalk {
            guard let talk else { return .failure("UNAVAILABLE: Talk mode is not running in this service") }
            return await talk.handle(request.command)
        }
        let response: PTTResponse
        switch request.command {
        case .start: response = await controller.perform(.start)
        case .stop: response = await controller.perform(.stop)
        case .cancel: response = await controller.perform(.cancel)
        case .once: response = await controller.perform(.once)
        case .toggle: response = await controller.toggle()
        case .talkOn, .talkOff, .talkToggle, .talkStatus: return .failure("INVALID_REQUEST: not a ptt command")
        }
        return ControlResponse(response)
    }

    /// Serves the control socket and hold-to-talk until cancelled, then ends an active capture
    /// `cancelled` and releases the microphone.
    func run() async {
        let server = startServer()
        let bus = startBus()
        let (edges, edgeSink) = AsyncStream.makeStream(of: HoldToTalkKeyState.Edge.self)
        let evdev = startEvdev { edgeSink.yield($0) }
        let controller = controller
        let presses = Task {
            for await edge in edges {
                _ = await controller.perform(edge == .pressed ? .start : .stop)
            }
        }
        // The work runs in the controller, the servers and `presses`: hold them until the stop.
        await untilCancelled()
        evdev?.stop()
        edgeSink.finish()
        presses.cancel()
        server?.stop()
        bus?.stop()
        await controller.shutdown()
        if ownsCapturing { capturing?.stop() }
    }

    private func startServer() -> ControlSocketServer? {
        do {
            let server = try ControlSocketServer(path: socketPath, logger: logger) { [self] request in
                await handle(request)
            }
            server.start()
            return server
        } catch {
            logger.error("ptt.control.unavailable", ["path": .string(socketPath), "error": .string("\(error)")])
            return nil
        }
    }

    /// The D-Bus entry point, when there is a session bus (none: logged at debug level).
    private func startBus() -> DBusControlService? {
        guard let sessionBus else {
            logger.debug("control.dbus.unavailable", ["reason": "no session bus"])
            return nil
        }
        let service = DBusControlService(address: sessionBus, logger: logger) { [self] request in
            await handle(request)
        }
        do {
            try service.start()
            return service
        } catch {
            logger.notice("control.dbus.unavailable", ["error": .string("\(error)")])
            return nil
        }
    }

    private func startEvdev(_ onEdge: @escaping @Sendable (HoldToTalkKeyState.Edge) -> Void) -> EvdevHoldToTalk? {
        guard let configuredKey else { return nil }
        guard let evdevKey else {
            logger.error("ptt.evdev.unknown_key", ["key": .string(configuredKey)])
            return nil
        }
        do {
            let reader = try EvdevHoldToTalk(key: evdevKey, logger: logger, onEdge: onEdge)
            reader.start()
            return reader
        } catch {
            logger.error("ptt.evdev.failed", ["error": .string("\(error)")])
            return nil
        }
    }
}

/// `run` speaks nothing yet, so there is no playback for push-to-talk to stop.
package struct NoSpeechOutput: SpeechStopping {
    /// Nothing was playing.
    func stopSpeaking(recordInterruption: Bool) async -> Double? { nil }
}
