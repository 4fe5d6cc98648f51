public import ClawTalkCommand
import ClawTalkDevices
import ClawTalkGateway
import ClawTalkNode
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTalk
import Foundation

/// `clawtalk say`: speaks text through the node's speaker.
public struct SayCommand: Command {
    /// The command name.
    public static let name = "say"
    /// One line for OVERVIEW.
    public static let abstract = "Speak text through the node's speaker."
    /// Which synthesizer is used.
    public static let discussion = """
        The current gateway synthesizes the speech with its Talk voice, the same way replies \
        are spoken; when it cannot be used (none paired, no operator access, unreachable) \
        espeak-ng on this machine speaks instead, with a note. --local always uses espeak-ng. \
        --last speaks the last reply 'clawtalk run' spoke.
        """
    /// Text source and voice.
    public static let options: [OptionSpec] = [
        .flag("local", help: "Synthesize with espeak-ng on this machine instead of the gateway."),
        .option("file", valueName: "path", help: "Play an audio clip (WAV, MP3, Ogg Opus) instead of text."),
        .flag("last", help: "Speak the last reply again."),
        .option(
            "voice", valueName: "name", help: "Voice to use (a gateway voice, or an espeak-ng voice with --local)."),
        .option("snd-device", valueName: "name", help: "Sound server sink to play to (see 'clawtalk devices')."),
        .positional("text", arity: .optional, help: "The text to speak."),
    ]

    /// The text given on the command line.
    public var text: String?
    /// `--local`.
    public var local: Bool
    /// `--file`.
    public var file: String?
    /// `--last`.
    public var last: Bool
    /// `--voice`.
    public var voice: String?
    /// `--snd-device`.
    public var sndDevice: String?

    /// Reads the arguments.
    public init(parsed: ParsedArguments) {
        text = parsed.string("text")
        local = parsed.flag("local")
        file = parsed.string("file")
        last = parsed.flag("last")
        voice = parsed.string("voice")
        sndDevice = parsed.string("snd-device")
    }

    /// At most one source of text.
    public func validate() throws {
        let sources = [text != nil, file != nil, last].filter { $0 }.count
        if sources > 1 {
            throw CLIError.validationFailed("Give only one of <text>, --file and --last.")
        }
    }

    /// Plays a clip (`--file`), or speaks the text (or the last reply, `--last`): through the
    /// gateway first, espeak-ng when the gateway cannot be used or with `--local`.
    public func run(context: CommandContext) async throws -> Int32 {
        let settings: Settings
        do {
            settings = try ConfigLoader(environment: context.environment).load().settings
        } catch {
            throw CLIError.validationFailed("configuration: \(error)")
        }
        let sink = sndDevice ?? settings.speaker.device
        if let file {
            return try await LocalPlayback.playClip(path: file, sink: sink)
        }
        let paths = XDGPaths(environment: context.environment)
        let spoken: String
        if last {
            spoken = try Self.lastReply(paths: paths)
        } else {
            guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw CLIError.validationFailed("Give the text to speak, e.g. clawtalk say \"hello\".")
            }
            spoken = text
        }
        if local {
            return try await LocalPlayback.speak(
                text: spoken, voice: voice ?? settings.tts.espeakVoice, rateWPM: settings.tts.espeakRateWPM, sink: sink)
        }
        return try await speakThroughGateway(spoken, settings: settings, sink: sink, paths: paths, context: context)
    }

    /// The last reply `clawtalk run` spoke.
    static func lastReply(paths: XDGPaths) throws -> String {
        let reply: LastReplyStore.Reply?
        do {
            reply = try LastReplyStore(directory: try StateDirectory.standard(paths: paths)).load()
        } catch {
            throw CLIError.failed("cannot read the last reply: \(error)")
        }
        guard let reply, !reply.text.isEmpty else {
            throw CLIError.failed("no reply has been spoken yet ('clawtalk run' saves each reply it speaks)")
        }
        return reply.text
    }

    private func speakThroughGateway(
        _ text: String, settings: Settings, sink: String?, paths: XDGPaths, context: CommandContext
    ) async throws -> Int32 {
        var logSettings = settings.log
        logSettings.level = max(logSettings.level, .warning)
        let logger = Logger(
            settings: logSettings, category: "clawtalk", output: LogOutput { context.io.writeError($0) })
        let (access, reason) = Self.gatewayAccess(settings: settings, paths: paths, logger: logger)
        let playback = PlaybackController(sink: sink)
        defer { playback.close() }
        let audio = PlaybackAudioOutput(controller: playback)
        let result = await SayFlow.speak(
            text, directive: voice.map { TalkDirective(voice: $0, language: nil, once: true) }, settings: settings,
            gateway: access, withoutGateway: reason, audio: audio,
            local: EspeakSynthesizer(defaultVoice: settings.tts.espeakVoice),
            logger: logger, errorEarcon: { await audio.playErrorEarcon() },
            notice: { context.io.writeError($0 + "\n") })
        return try Self.exitCode(for: result)
    }

    /// The current gateway and a connection factory, or nil and why (none paired or
    /// configured, no device identity yet, unreadable state): the flow then speaks locally.
    static func gatewayAccess(settings: Settings, paths: XDGPaths, logger: Logger) -> (
        access: SayFlow.GatewayAccess?, reason: String
    ) {
        let state: StateDirectory
        do {
            state = try StateDirectory.standard(paths: paths)
        } catch {
            return (nil, "the state directory cannot be used (\(error))")
        }
        let store = GatewayStore(directory: state)
        let target: GatewayTarget?
        do {
            target = try GatewayTarget.resolve(settings: settings.gateway, store: store)
        } catch {
            return (nil, "the gateway setting cannot be used (\(error))")
        }
        guard let target else { return (nil, "no gateway is configured") }
        let identityFile = URL(fileURLWithPath: state.filePath("identity.json"))
        guard let identity = try? IdentityStore(fileURL: identityFile).load() else {
            return (nil, "this device has no identity yet (pair it with 'clawtalk pair')")
        }
        // Only the operator role connects: no device probing for the node surface.
        let factory = GatewayConnectionFactory(
            settings: settings, identity: identity, store: store, logger: logger,
            surface: NodeSurface(caps: [.talk], commands: [], permissions: [:]))
        return (SayFlow.GatewayAccess(factory: factory, target: target), "")
    }

    /// 0 when something was spoken (or there was nothing to say); 69 without a sound server;
    /// 1 for other failures.
    static func exitCode(for result: SpeechResult) throws -> Int32 {
        switch result.outcome {
        case .finished, .interrupted, .silent:
            return ExitCode.success.rawValue
        case .failed(let reason):
            if reason.contains("no sound server") { throw CLIError.unavailable(reason) }
            throw CLIError.failed("could not speak: \(reason)")
        }
    }
}
