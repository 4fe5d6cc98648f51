public import ClawTalkAudio

/// Failures of the speech engines: espeak-ng synthesis, PocketSphinx decoding, the TF Lite
/// runtime and microWakeWord models.
public enum SpeechError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An ``EspeakEngine`` already exists in this process (espeak-ng state is global).
    case engineInUse
    /// espeak-ng failed; `message` is espeak-ng's own text for its status code.
    case espeak(operation: String, message: String)
    /// espeak-ng has no voice by this name.
    case unknownVoice(String)
    /// ``EspeakEngine/cancel()`` stopped the synthesis.
    case cancelled
    /// A model, dictionary or library file does not exist.
    case fileNotFound(path: String)
    /// PocketSphinx refused an operation (its log has the details when one is configured).
    case decoder(operation: String, message: String)
    /// A keyphrase word is not in the PocketSphinx dictionary.
    case unknownWord(String)
    /// The audio is not in the format the engine needs.
    case unsupportedFormat(AudioFormat, expected: AudioFormat)
    /// No TF Lite C runtime could be loaded from any of the searched locations.
    case runtimeUnavailable(searched: [String], reason: String)
    /// The loaded TF Lite library lacks a required function.
    case missingSymbol(name: String, library: String)
    /// TF Lite failed; `message` is what its error reporter said, if anything.
    case tflite(operation: String, message: String)
    /// A buffer does not match the tensor it is copied to or from.
    case tensorSize(index: Int, expected: Int, actual: Int)
    /// A microWakeWord JSON manifest is unreadable or inconsistent.
    case manifest(path: String, message: String)

    /// One line for logs and the CLI.
    public var description: String {
        switch self {
        case .engineInUse:
            "espeak-ng is already in use: only one EspeakEngine may exist per process"
        case .espeak(let operation, let message):
            "espeak-ng \(operation) failed: \(message)"
        case .unknownVoice(let name):
            "espeak-ng has no voice named '\(name)'"
        case .cancelled:
            "speech synthesis was cancelled"
        case .fileNotFound(let path):
            "file not found: \(path)"
        case .decoder(let operation, let message):
            "PocketSphinx \(operation) failed: \(message)"
        case .unknownWord(let word):
            "PocketSphinx dictionary has no word '\(word)' (add a pronunciation for it)"
        case .unsupportedFormat(let format, let expected):
            "unsupported audio format \(format), expected \(expected)"
        case .runtimeUnavailable(let searched, let reason):
            "TensorFlow Lite runtime not found (searched: \(searched.joined(separator: ", "))): "
                + "\(reason); run scripts/setup to install it or set CLAWTALK_TFLITE_LIB"
        case .missingSymbol(let name, let library):
            "TensorFlow Lite library \(library) lacks the function \(name)"
        case .tflite(let operation, let message):
            "TensorFlow Lite \(operation) failed" + (message.isEmpty ? "" : ": \(message)")
        case .tensorSize(let index, let expected, let actual):
            "tensor \(index) holds \(expected) bytes, got \(actual)"
        case .manifest(let path, let message):
            "microWakeWord manifest \(path): \(message)"
        }
    }
}
