public import ClawTalkAudio

/// A speech-to-text engine: turns one finished utterance (16 kHz mono PCM) into text.
///
/// Implementations do their blocking work (sockets, decoders) off the cooperative pool and
/// honour task cancellation. They return an empty ``Transcript/text`` when nothing was said,
/// and discard outputs that merely echo the prompt (see ``PromptEcho``).
public protocol Transcriber: Sendable {
    /// Short engine name for logs and the CLI (`wyoming`, `pocketsphinx`).
    var name: String { get }

    /// Transcribes `audio` (16 kHz mono, ``AudioFormat/speech``).
    func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript
}

extension Transcriber {
    /// Transcribes `audio` with default options (engine's language, no prompt).
    public func transcribe(_ audio: PCMBuffer) async throws -> Transcript {
        try await transcribe(audio, options: TranscriptionOptions())
    }
}
