public import ClawTalkAudio
import ClawTalkSupport
import Synchronization

/// Speech-to-text through a Wyoming server (``WyomingClient``), normally the local
/// `wyoming-faster-whisper` with the Whisper base model.
///
/// The first transcription (or ``prepare()``) asks the server to `describe` itself, within
/// ``Configuration/describeTimeout``: that tells an absent server apart quickly (the fallback
/// engine can step in) and names the model in each ``Transcript``. The answer is kept until a
/// request fails to connect.
///
/// Prompts: wyoming-faster-whisper 3.8.1 takes its Whisper `initial_prompt` only from its own
/// `--initial-prompt` flag (or `WYO_WHISPER_INITIAL_PROMPT`); the per-request protocol field
/// `transcript_names`, which this client fills from ``TranscriptionOptions/prompt``, is parsed by
/// the wyoming library but not used by that server. Echoes of either prompt (the request's, and
/// ``Configuration/serverPrompt``) are discarded (``PromptEcho``).
public final class WyomingTranscriber: Transcriber {
    /// Where the server is and how long to wait for it.
    public struct Configuration: Sendable, Hashable {
        /// Server host.
        public var host: String
        /// Server port.
        public var port: Int
        /// Limit for the `describe` probe (connecting included).
        public var describeTimeout: Duration
        /// Limit for one transcription after connecting.
        public var responseTimeout: Duration
        /// The `--initial-prompt` the server runs with (as in config/clawtalk-stt.service), so its
        /// echoes are discarded even when a request has no prompt; nil for none.
        public var serverPrompt: String?

        /// Creates a configuration.
        public init(
            host: String = "127.0.0.1", port: Int = 10300, describeTimeout: Duration = .seconds(1),
            responseTimeout: Duration = .seconds(30), serverPrompt: String? = WyomingTranscriber.defaultServerPrompt
        ) {
            self.host = host
            self.port = port
            self.describeTimeout = describeTimeout
            self.responseTimeout = responseTimeout
            self.serverPrompt = serverPrompt
        }
    }

    /// The `--initial-prompt` of config/clawtalk-stt.service: OpenClaw's default wake triggers.
    public static let defaultServerPrompt = "OpenClaw, Claude, computer."

    /// `wyoming`.
    public let name = "wyoming"
    /// The configuration.
    public let configuration: Configuration
    private let client: WyomingClient
    private let info = Mutex<WyomingInfo?>(nil)

    /// A transcriber for the server in `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        client = WyomingClient(
            host: configuration.host, port: configuration.port, connectTimeout: configuration.describeTimeout,
            responseTimeout: configuration.responseTimeout)
    }

    /// Asks the server to describe itself (within ``Configuration/describeTimeout``) and keeps the
    /// answer; throws ``SpeechError/sttServerUnreachable(host:port:reason:)`` when nothing answers.
    @discardableResult
    public func prepare() async throws -> WyomingInfo {
        if let known = info.locked({ $0 }) { return known }
        let described: WyomingInfo
        do {
            described = try await client.describe(timeout: configuration.describeTimeout)
        } catch SpeechError.sttTimedOut {
            let limit = SpeechError.secondsText(configuration.describeTimeout.inSeconds)
            throw SpeechError.sttServerUnreachable(
                host: configuration.host, port: configuration.port, reason: "no answer to 'describe' within \(limit)")
        }
        guard !described.asr.isEmpty else {
            throw SpeechError.sttEngineUnavailable(
                engine: name,
                reason: "the server at \(configuration.host):\(configuration.port) offers no speech-to-text program")
        }
        info.locked { $0 = described }
        return described
    }

    /// Transcribes 16 kHz mono `audio`; the language is sent as its primary subtag (`en-US` → `en`).
    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
        guard audio.format == .speech else {
            throw SpeechError.unsupportedFormat(audio.format, expected: .speech)
        }
        let start = ContinuousClock.now
        let described = try await prepare()
        let language = options.languageCode
        if let language, !described.supports(languageCode: language) {
            throw SpeechError.unsupportedLanguage(language, engine: "\(name) (\(described.summary ?? "server"))")
        }
        let reply: WyomingTranscriptReply
        do {
            reply = try await client.transcription(
                audio, language: language, names: options.prompt, detectTurn: options.detectTurn)
        } catch let error as SpeechError {
            if case .sttServerUnreachable = error { info.locked { $0 = nil } }
            throw error
        }
        var prompts = [options.prompt]
        if let serverPrompt = configuration.serverPrompt {
            prompts.append(PromptEcho.phrases(ofPromptText: serverPrompt))
        }
        let raw = reply.text
        let echo = PromptEcho.isEcho(raw, prompts: prompts)
        return Transcript(
            text: echo ? "" : raw.trimmingWhitespace(), engine: name, model: described.summary, rawText: raw,
            discardedAsEcho: echo, audioSeconds: audio.duration, processingTime: start.duration(to: .now),
            turnComplete: reply.turnComplete)
    }
}
