/// The result of one transcription.
public struct Transcript: Sendable, Hashable {
    /// What was said, trimmed; empty when nothing was recognised or the output was a prompt echo.
    public var text: String
    /// The engine that answered (`wyoming`, `pocketsphinx`).
    public var engine: String
    /// What the engine ran, when known (`faster-whisper base`, `en-us language model`).
    public var model: String?
    /// The engine's text before prompt-echo filtering and trimming.
    public var rawText: String
    /// Whether ``rawText`` was discarded as an echo of the prompt (see ``PromptEcho``).
    public var discardedAsEcho: Bool
    /// Seconds of audio transcribed.
    public var audioSeconds: Double
    /// Wall-clock time the engine took, from the request to the answer.
    public var processingTime: Duration
    /// Why the configured engine did not answer, when a fallback engine did.
    public var fallbackReason: String?
    /// P(the speaker's turn is complete), when asked (``TranscriptionOptions/detectTurn``) and
    /// the engine can tell; nil otherwise.
    public var turnComplete: Double?

    /// Creates a transcript.
    public init(
        text: String, engine: String, model: String? = nil, rawText: String? = nil, discardedAsEcho: Bool = false,
        audioSeconds: Double, processingTime: Duration, fallbackReason: String? = nil, turnComplete: Double? = nil
    ) {
        self.turnComplete = turnComplete
        self.text = text
        self.engine = engine
        self.model = model
        self.rawText = rawText ?? text
        self.discardedAsEcho = discardedAsEcho
        self.audioSeconds = audioSeconds
        self.processingTime = processingTime
        self.fallbackReason = fallbackReason
    }

    /// `wyoming (faster-whisper base)`, or just the engine when the model is unknown.
    public var engineDescription: String {
        model.map { "\(engine) (\($0))" } ?? engine
    }

    /// ``processingTime`` in seconds.
    public var processingSeconds: Double {
        let (seconds, attoseconds) = processingTime.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
