public import ClawTalkAudio

/// Stage 2 of voice wake: a speech recognizer that transcribes the audio around a stage-1 hit
/// so the trigger gate (``TriggerMatcher``) can confirm it. Any transcriber plugs in through a
/// closure; word timings, when the recognizer has them, let the gate apply its pause rules.
public struct TranscriptVerifier: Sendable {
    /// Transcribes 16 kHz mono audio; `prompt` lists the triggers for recognizers that accept an
    /// initial prompt (Whisper). Word timings are relative to the start of the buffer.
    public typealias Transcribe = @Sendable (PCMBuffer, _ prompt: String?) async throws -> RecognizedTranscript

    /// Name for logs and reports (`pocketsphinx`, `wyoming`, …).
    public var name: String
    /// The recognizer.
    public var transcribe: Transcribe

    /// A verifier whose recognizer reports words (with timings where it can).
    public init(name: String, transcribe: @escaping Transcribe) {
        self.name = name
        self.transcribe = transcribe
    }

    /// A verifier whose recognizer reports plain text (the gate then uses its text-only rule).
    public init(name: String, text: @escaping @Sendable (PCMBuffer, _ prompt: String?) async throws -> String) {
        self.name = name
        transcribe = { buffer, prompt in
            RecognizedTranscript(text: try await text(buffer, prompt), isFinal: true, audioDuration: buffer.duration)
        }
    }

    /// PocketSphinx dictation (`decoder` in ``PocketSphinxDecoder/Mode/languageModel``, with the
    /// triggers' extra pronunciations added). Decoding blocks the calling thread (≈ 0.35 × the
    /// audio length): callers that must not block run it on their own lane. No word timings.
    public static func pocketSphinx(_ decoder: PocketSphinxDecoder) -> TranscriptVerifier {
        TranscriptVerifier(name: "pocketsphinx") { buffer, _ in try decoder.transcribe(buffer) }
    }
}
