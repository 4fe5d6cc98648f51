public import ClawTalkAudio

/// An engine that cannot be used here (e.g. the gateway relay before it is implemented): every
/// call throws ``SpeechError/sttEngineUnavailable(engine:reason:)``, which makes a
/// ``FallbackTranscriber`` move on.
public struct UnavailableTranscriber: Transcriber {
    /// The engine's name.
    public let name: String
    /// Why it cannot be used.
    public let reason: String

    /// An engine `name` that is unavailable because of `reason`.
    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }

    /// Always throws ``SpeechError/sttEngineUnavailable(engine:reason:)``.
    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
        throw SpeechError.sttEngineUnavailable(engine: name, reason: reason)
    }
}
