public import ClawTalkAudio
import ClawTalkSupport
import Synchronization

/// Speech-to-text with the built-in PocketSphinx dictation decoder (Debian's en-us model): the
/// always-available fallback when no Wyoming server answers.
///
/// The decoder is made on first use (≈ 1.5 s to load the 27 MB language model) and then reused;
/// decoding runs on this transcriber's own serial lane (RTF ≈ 0.35 on one core). English only;
/// the prompt is ignored (PocketSphinx dictation has no biasing), but echo filtering still
/// applies so the engines behave alike.
public final class PocketSphinxTranscriber: Transcriber {
    /// `pocketsphinx`.
    public let name = "pocketsphinx"
    /// The model files.
    public let model: PocketSphinxDecoder.Model
    private let decoder = Mutex<PocketSphinxDecoder?>(nil)
    private let lane = SerialLane(label: "clawtalk.pocketsphinx")

    /// A transcriber over `model` (Debian's en-us by default); nothing is loaded yet.
    public init(model: PocketSphinxDecoder.Model = .debianEnglish) {
        self.model = model
    }

    /// Loads the decoder now (on the lane) instead of on the first transcription.
    public func prepare() async throws {
        try await lane.run { [self] in _ = try loadedDecoder() }
    }

    /// Transcribes 16 kHz mono `audio`; throws ``SpeechError/unsupportedLanguage(_:engine:)``
    /// for a language other than English.
    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
        guard audio.format == PocketSphinxDecoder.format else {
            throw SpeechError.unsupportedFormat(audio.format, expected: PocketSphinxDecoder.format)
        }
        if let language = options.languageCode, language != "en" {
            throw SpeechError.unsupportedLanguage(language, engine: name)
        }
        let start = ContinuousClock.now
        let raw = try await lane.run { [self] in
            try loadedDecoder().transcribe(audio)
        }
        let echo = PromptEcho.isEcho(raw, prompt: options.prompt)
        return Transcript(
            text: echo ? "" : raw, engine: name, model: "en-us language model", rawText: raw, discardedAsEcho: echo,
            audioSeconds: audio.duration, processingTime: start.duration(to: .now))
    }

    /// The decoder, made on first call (only ever called on the lane).
    private func loadedDecoder() throws -> PocketSphinxDecoder {
        try decoder.locked { decoder in
            if let decoder { return decoder }
            let made = try PocketSphinxDecoder(mode: .languageModel, model: model)
            decoder = made
            return made
        }
    }
}
