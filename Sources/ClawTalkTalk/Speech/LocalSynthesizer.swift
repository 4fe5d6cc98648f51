public import ClawTalkAudio

/// Local text-to-speech (espeak-ng in production, talk.md §7.4), behind a seam so speech
/// output tests do not need the library.
public protocol LocalSynthesizer: Sendable {
    /// Renders `text` with `voice` (an espeak-ng voice or language, e.g. `en-us`, `de`) at
    /// `rateWPM` words per minute; an unknown voice falls back to the synthesizer's default.
    func synthesize(_ text: String, voice: String, rateWPM: Int) async throws -> PCMBuffer
    /// Aborts a synthesis in progress (barge-in); later calls are unaffected.
    func cancel()
}
