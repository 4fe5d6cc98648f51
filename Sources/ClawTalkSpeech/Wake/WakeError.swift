/// Failures of the wake pipeline's own parts (pronunciations, engine selection, verification).
/// Engine libraries keep reporting ``SpeechError``.
public enum WakeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// espeak-ng could not spell a word in phonemes.
    case phonemizer(message: String)
    /// No pronunciation could be found or derived for a trigger word.
    case noPronunciation(word: String)
    /// The engine cannot listen for this trigger (e.g. microWakeWord without a model for it).
    case unsupportedTrigger(trigger: String, engine: String)
    /// A keyphrase threshold is not a positive number.
    case invalidThreshold(trigger: String, value: Double)

    /// One line for logs and the CLI.
    public var description: String {
        switch self {
        case .phonemizer(let message):
            "espeak-ng phonemes: \(message)"
        case .noPronunciation(let word):
            "no pronunciation for '\(word)' (not in the dictionary, and espeak-ng gave none)"
        case .unsupportedTrigger(let trigger, let engine):
            "wake engine \(engine) cannot listen for '\(trigger)'"
        case .invalidThreshold(let trigger, let value):
            "wake threshold \(value) for '\(trigger)' must be a positive number"
        }
    }
}
