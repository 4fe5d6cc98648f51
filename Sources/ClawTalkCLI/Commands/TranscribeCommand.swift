import ClawTalkAudio
import ClawTalkCodecs
public import ClawTalkCommand
import ClawTalkNode
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import Foundation

/// `clawtalk transcribe`: runs speech-to-text on a WAV file with the node's engines.
public struct TranscribeCommand: Command {
    /// The command name.
    public static let name = "transcribe"
    /// One line for OVERVIEW.
    public static let abstract = "Transcribe the speech in a WAV file to text."
    /// Engines, output and fallbacks.
    public static let discussion = """
        The audio is mixed to mono and resampled to 16 kHz. The transcript goes to standard \
        output; the engine that answered and its time go to standard error.

        Without --engine, the configured engine (stt.engine) is used with the node's fallbacks: \
        when the Wyoming server does not answer, PocketSphinx transcribes instead. With --engine \
        only that engine is tried, and an unreachable server is an error (exit 69).

        The gateway engine sends the audio to the current gateway's transcription relay over a \
        short-lived operator connection (talk.session.*; the gateway must offer it in talk.catalog).

        --start-server runs a temporary wyoming-faster-whisper with the Whisper base model for \
        this one transcription (installed by scripts/setup and scripts/fetch-whisper-model); \
        loading the model adds a few seconds.
        """
    /// Engine, language, prompt and input.
    public static let options: [OptionSpec] = [
        .option(
            "engine", valueName: "name", help: "Use only this engine (default: stt.engine, with fallbacks).",
            allowedValues: [STTEngine.wyoming.rawValue, STTEngine.pocketsphinx.rawValue, STTEngine.gateway.rawValue]),
        .option("language", valueName: "code", help: "Spoken language, e.g. en or de-DE (default: stt.language)."),
        .option(
            "prompt", valueName: "words",
            help: "Comma-separated words to expect, e.g. the wake triggers; output that only repeats them is dropped."),
        .flag("start-server", help: "Start a temporary local Wyoming server for this transcription."),
        .positional("file", help: "The WAV file to transcribe (any rate and channel count)."),
    ]

    /// `--engine`.
    var engine: STTEngine?
    /// `--language`.
    public var language: String?
    /// `--prompt`, split at commas.
    public var prompt: [String]
    /// `--start-server`.
    public var startServer: Bool
    /// The WAV file.
    public var file: String

    /// Reads the arguments.
    public init(parsed: ParsedArguments) {
        engine = parsed.value("engine", as: STTEngine.self)
        language = parsed.string("language")
        prompt = parsed.string("prompt").map(PromptEcho.phrases(ofPromptText:)) ?? []
        startServer = parsed.flag("start-server")
        file = parsed.string("file") ?? ""
    }

    /// `--start-server` needs the Wyoming engine.
    public func validate() throws {
        if startServer, let engine, engine != .wyoming {
            throw CLIError.validationFailed(
                "--start-server runs a Wyoming server; it cannot be used with --engine \(engine.rawValue).")
        }
    }

    /// Reads and converts the file, transcribes it and prints the transcript and the engine.
    public func run(context: CommandContext) async throws -> Int32 {
        let settings: Settings
        do {
            settings = try ConfigLoader(environment: context.environment).load().settings
        } catch {
            throw CLIError.validationFailed("configuration: \(error)")
        }
        let audio = try Self.readSpeech(path: file)
        var server: WyomingServerProcess?
        defer { server?.stop() }
        var wyoming: WyomingTranscriber.Configuration?
        if startServer {
            let started = try await Self.startServer(paths: XDGPaths(environment: context.environment))
            context.io.writeError(
                "server: \(started.configuration.program.rawValue) on \(started.address), "
                    + "ready in \(Self.seconds(started.startupTime))\n")
            wyoming = started.transcriberConfiguration
            server = started
        }
        let chosen = engine ?? (startServer ? .wyoming : settings.stt.engine)
        let relay = chosen == .gateway ? await Self.openRelay(settings: settings, context: context) : nil
        let transcriber = TranscriberSelector.transcriber(
            for: settings.stt, engine: chosen, strict: engine != nil, paths: XDGPaths(environment: context.environment),
            wyoming: wyoming, gateway: relay?.transcriber)
        let options = TranscriptionOptions(language: language ?? settings.stt.language, prompt: prompt)
        let transcript: Transcript
        do {
            transcript = try await transcriber.transcribe(audio, options: options)
            await relay?.connection?.close()
        } catch let error as SpeechError {
            await relay?.connection?.close()
            if FallbackTranscriber.isUnavailable(error) { throw CLIError.unavailable("\(error)") }
            throw error
        }
        context.io.writeOutput(transcript.text + "\n")
        var report = "engine: \(transcript.engineDescription) in \(Self.seconds(transcript.processingTime))\n"
        if let reason = transcript.fallbackReason { report += "fallback: \(reason)\n" }
        if transcript.discardedAsEcho {
            report += "note: the output only repeated the prompt and was dropped: \(transcript.rawText)\n"
        }
        context.io.writeError(report)
        return ExitCode.success.rawValue
    }

    /// The relay client over a short-lived operator connection to the current gateway; without
    /// one (not configured, no operator access, unreachable) the client stays detached and says
    /// why when used, and a note goes to standard error.
    static func openRelay(settings: Settings, context: CommandContext) async -> (
        transcriber: GatewayRelayTranscriber, connection: SayFlow.OpenOperator?
    ) {
        var logSettings = settings.log
        logSettings.level = max(logSettings.level, .warning)
        let logger = Logger(
            settings: logSettings, category: "clawtalk", output: LogOutput { context.io.writeError($0) })
        let relay = GatewayRelayTranscriber(logger: logger)
        let (access, reason) = SayCommand.gatewayAccess(
            settings: settings, paths: XDGPaths(environment: context.environment), logger: logger)
        guard let access else {
            context.io.writeError("note: \(reason); the gateway relay cannot be used\n")
            return (relay, nil)
        }
        // As long as a connection may take (`gateway.connectTimeoutMs`): the user asked for the
        // gateway, and a busy gateway answered after 5 s (a parallel test run, 2026-12-07).
        switch await SayFlow.openOperator(access, timeout: settings.gateway.connectTimeout, logger: logger) {
        case .success(let open):
            relay.attach(operator: open.session)
            return (relay, open)
        case .failure(let problem):
            context.io.writeError("note: \(problem.reason); the gateway relay cannot be used\n")
            return (relay, nil)
        }
    }

    /// The WAV at `path` as 16 kHz mono.
    static func readSpeech(path: String) throws -> PCMBuffer {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.validationFailed("cannot read '\(path)': no such file or not readable")
        }
        let pcm: PCMBuffer
        do {
            pcm = try WAVFile.decode(data)
        } catch {
            throw TranscribeError.unreadable(path: path, reason: "\(error)")
        }
        do {
            return try Resampler.resample(mono(pcm), to: AudioFormat.speech.sampleRate)
        } catch {
            throw TranscribeError.unreadable(path: path, reason: "resampling failed: \(error)")
        }
    }

    /// `pcm` with its channels averaged.
    static func mono(_ pcm: PCMBuffer) -> PCMBuffer {
        let channels = pcm.format.channels
        guard channels > 1 else { return pcm }
        var samples = [Int16]()
        samples.reserveCapacity(pcm.frameCount)
        for frame in 0..<pcm.frameCount {
            var sum = 0
            for channel in 0..<channels { sum += Int(pcm.samples[frame * channels + channel]) }
            samples.append(Int16(sum / channels))
        }
        return PCMBuffer(format: AudioFormat(sampleRate: pcm.format.sampleRate), samples: samples)
    }

    private static func startServer(paths: XDGPaths) async throws -> WyomingServerProcess {
        do {
            return try await WyomingServerProcess.start(.installed(paths: paths))
        } catch let error as SpeechError {
            throw CLIError.unavailable("\(error)")
        }
    }

    /// `1.4 s`.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return String(format: "%.1f s", value)
    }
}

/// Failures of `clawtalk transcribe` that are not usage errors.
enum TranscribeError: Error, CustomStringConvertible {
    /// The file is not a WAV file this node can read.
    case unreadable(path: String, reason: String)

    var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot transcribe '\(path)': \(reason)"
        }
    }
}
