public import ClawTalkAudio

/// Failures of the speech engines: espeak-ng synthesis, PocketSphinx decoding, the TF Lite
/// runtime, microWakeWord models and speech-to-text (Wyoming servers, engine selection).
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
    /// No Wyoming speech-to-text server answers at `address` (`host:port` or a socket path:
    /// refused, no route, no such socket, or no answer within the connect timeout); `reason` is
    /// the socket error.
    case sttServerUnreachable(address: String, reason: String)
    /// A Wyoming peer broke the protocol (malformed frame, unexpected event, closed early).
    case wyomingProtocol(String)
    /// A speech-to-text step took longer than its limit.
    case sttTimedOut(operation: String, seconds: Double)
    /// A speech-to-text engine cannot be used here (not implemented yet, or not installed).
    case sttEngineUnavailable(engine: String, reason: String)
    /// The engine does not recognise this language.
    case unsupportedLanguage(String, engine: String)
    /// A local Wyoming server process could not be started or did not become ready.
    case sttServerStart(String)

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
                + "\(reason); run \(SpeechSetup.command()) to install it or set CLAWTALK_TFLITE_LIB"
        case .missingSymbol(let name, let library):
            "TensorFlow Lite library \(library) lacks the function \(name)"
        case .tflite(let operation, let message):
            "TensorFlow Lite \(operation) failed" + (message.isEmpty ? "" : ": \(message)")
        case .tensorSize(let index, let expected, let actual):
            "tensor \(index) holds \(expected) bytes, got \(actual)"
        case .manifest(let path, let message):
            "microWakeWord manifest \(path): \(message)"
        case .sttServerUnreachable(let address, let reason):
            "speech-to-text server unreachable at \(address) (\(reason)); 'clawtalk run' starts its own "
                + "(server and model: \(SpeechSetup.command())), or point stt.wyomingHost/stt.wyomingPort or "
                + "stt.wyomingSocket at a running one"
        case .wyomingProtocol(let message):
            "Wyoming protocol error: \(message)"
        case .sttTimedOut(let operation, let seconds):
            "speech-to-text \(operation) timed out after \(Self.secondsText(seconds))"
        case .sttEngineUnavailable(let engine, let reason):
            "speech-to-text engine '\(engine)' is not available: \(reason)"
        case .unsupportedLanguage(let language, let engine):
            "speech-to-text engine '\(engine)' does not support language '\(language)'"
        case .sttServerStart(let message):
            "could not start the Wyoming speech-to-text server: \(message)"
        }
    }

    /// `1.5 s`, `30 s`.
    static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\((seconds * 10).rounded() / 10) s"
    }
}
