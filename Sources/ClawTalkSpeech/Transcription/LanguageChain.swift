public import ClawTalkAudio
public import ClawTalkSupport
import Synchronization

/// The language of speech-to-text (talk.md §5.3): the gateway's `talk.speechLocale`, else the
/// request's own (`stt.language`, else the system locale), else `en`, so that Whisper never
/// spends a request on detecting it. A language the engine does not support
/// (``SpeechError/unsupportedLanguage(_:engine:)``) falls back to the next one along the chain.
public enum LanguageChoice {
    /// The languages to try in order, without repeats (by primary subtag), `en` last.
    public static func chain(gateway: String?, requested: String?) -> [String] {
        var chain: [String] = []
        for candidate in [gateway, requested, "en"] {
            guard let candidate, let code = TranscriptionOptions(language: candidate).languageCode else { continue }
            if !chain.contains(where: { TranscriptionOptions(language: $0).languageCode == code }) {
                chain.append(candidate)
            }
        }
        return chain
    }
}

/// A ``Transcriber`` that chooses each request's language by ``LanguageChoice``; the gateway's
/// `talk.speechLocale` is set with ``setGatewayLocale(_:)`` whenever `talk.config` is read.
public final class LanguageChainTranscriber: Transcriber {
    /// The engine that transcribes.
    public let inner: any Transcriber
    private let gatewayLocale = Mutex<String?>(nil)
    private let logger: Logger

    /// `inner`, with the language chosen per request.
    public init(inner: any Transcriber, logger: Logger = .discarding) {
        self.inner = inner
        self.logger = logger
    }

    /// The inner engine's name.
    public var name: String { inner.name }

    /// The gateway's `talk.speechLocale` (nil: none).
    public func setGatewayLocale(_ locale: String?) {
        gatewayLocale.locked { $0 = locale }
    }

    /// Transcribes with the first language of the chain that the engine supports.
    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
        let chain = LanguageChoice.chain(gateway: gatewayLocale.locked { $0 }, requested: options.language)
        var lastError: (any Error)?
        for language in chain {
            var chosen = options
            chosen.language = language
            do {
                return try await inner.transcribe(audio, options: chosen)
            } catch let error as SpeechError {
                guard case .unsupportedLanguage = error else { throw error }
                logger.notice("stt.language.unsupported", ["language": .string(language), "engine": .string(name)])
                lastError = error
            }
        }
        throw lastError ?? SpeechError.unsupportedLanguage(options.language ?? "en", engine: name)
    }
}
