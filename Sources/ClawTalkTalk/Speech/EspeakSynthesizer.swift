public import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkSupport
import Synchronization

/// ``LocalSynthesizer`` over the process's one ``EspeakEngine``: created on first use (so a
/// node that never falls back never loads espeak-ng), driven from one serial lane, voice and
/// rate switched per request. An unknown voice falls back to `defaultVoice`.
public final class EspeakSynthesizer: LocalSynthesizer {
    /// The voice used when a requested one is unknown.
    public let defaultVoice: String
    private let engine = Mutex<EspeakEngine?>(nil)
    private let lane = SerialLane(label: "clawtalk.espeak")

    /// A synthesizer; nothing is loaded until the first ``synthesize(_:voice:rateWPM:)``.
    public init(defaultVoice: String = "en-us") {
        self.defaultVoice = defaultVoice
    }

    /// Renders `text` on the espeak-ng lane (22050 Hz mono for the built-in voices).
    public func synthesize(_ text: String, voice: String, rateWPM: Int) async throws -> PCMBuffer {
        try await lane.run { [self] in
            let engine = try loadedEngine(voice: voice, rateWPM: rateWPM)
            if engine.voice != voice {
                do {
                    try engine.setVoice(voice)
                } catch SpeechError.unknownVoice {
                    if engine.voice != defaultVoice { try engine.setVoice(defaultVoice) }
                }
            }
            if engine.rateWPM != rateWPM { try engine.setRate(wpm: rateWPM) }
            return try engine.synthesize(text)
        }
    }

    /// Aborts the synthesis in progress, if any.
    public func cancel() {
        engine.locked { $0 }?.cancel()
    }

    /// The engine, created with `voice` (or the default when espeak-ng does not know it).
    private func loadedEngine(voice: String, rateWPM: Int) throws -> EspeakEngine {
        if let existing = engine.locked({ $0 }) { return existing }
        let created: EspeakEngine
        do {
            created = try EspeakEngine(voice: voice, rateWPM: rateWPM)
        } catch SpeechError.unknownVoice {
            created = try EspeakEngine(voice: defaultVoice, rateWPM: rateWPM)
        }
        engine.locked { $0 = created }
        return created
    }
}
