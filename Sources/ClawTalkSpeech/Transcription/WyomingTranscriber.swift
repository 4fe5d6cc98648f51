public import ClawTalkAudio
public import ClawTalkSupport
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
        /// Where the server listens.
        public var address: WyomingAddress
        /// Limit for the `describe` probe (connecting included).
        public var describeTimeout: Duration
        /// Limit for one transcription after connecting.
        public var responseTimeout: Duration
        /// The `--initial-prompt` the server runs with (as in config/clawtalk-stt.service), so its
        /// echoes are discarded even when a request has no prompt; nil for none.
        public var serverPrompt: String?

        /// Creates a configuration.
        public init(
            address: WyomingAddress, describeTimeout: Duration = .seconds(1), responseTimeout: Duration = .seconds(30),
            serverPrompt: String? = WyomingTranscriber.defaultServerPrompt
        ) {
            self.address = address
            self.describeTimeout = describeTimeout
            self.responseTimeout = responseTimeout
            self.serverPrompt = serverPrompt
        }

        /// A configuration for the TCP server at `host:port`.
        public init(
            host: String = "127.0.0.1", port: Int, describeTimeout: Duration = .seconds(1),
            responseTimeout: Duration = .seconds(30), serverPrompt: String? = WyomingTranscriber.defaultServerPrompt
        ) {
            self.init(
                address: .tcp(host: host, port: port), describeTimeout: describeTimeout,
                responseTimeout: responseTimeout, serverPrompt: serverPrompt)
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
    public init(configuration: Configuration) {
        self.configuration = configuration
        client = WyomingClient(
            address: configuration.address, connectTimeout: configuration.describeTimeout,
            responseTimeout: configuration.responseTimeout)
    }

    /// Asks the server to describe itself (within ``Configuration/describeTimeout``) and keeps the
    /// answer; throws ``SpeechError/sttServerUnreachable(address:reason:)`` when nothing answers.
    @discardableResult
    public func prepare() async throws -> WyomingInfo {
        if let known = info.locked({ $0 }) { return known }
        let described: WyomingInfo
        do {
            described = try await client.describe(timeout: configuration.describeTimeout)
        } catch SpeechError.sttTimedOut {
            let limit = SpeechError.secondsText(configuration.describeTimeout.inSeconds)
            throw SpeechError.sttServerUnreachable(
                address: "\(configuration.address)", reason: "no answer to 'describe' within \(limit)")
        }
        guard !described.asr.isEmpty else {
            throw SpeechError.sttEngineUnavailable(
                engine: name,
                reason: "the server at \(configuration.address) offers no speech-to-text program")
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
