/// A trigger heard by a ``WakeEngine`` (stage 1 of voice wake).
public struct WakeHit: Sendable, Hashable, Codable {
    /// The trigger as configured (the Gateway's spelling), e.g. `computer` or `hey jarvis`.
    public var trigger: String
    /// The engine that heard it: ``MicroWakeWordEngine/engineName`` or ``PocketSphinxKeywordEngine/engineName``.
    public var engine: String
    /// Seconds of audio from the engine's start (or last reset) to the point where it decided.
    public var atSeconds: Double
    /// The engine's confidence: microWakeWord's window mean (0...1); for PocketSphinx the
    /// keyphrase threshold that was passed (``PocketSphinxDecoder`` exposes no per-detection
    /// confidence for keyphrases).
    public var score: Double
    /// The threshold ``score`` was held against, for an engine that reports one per hit (the
    /// Whisper keyword scorer's per-trigger threshold); nil otherwise.
    public var threshold: Double?
    /// Seconds of audio up to the end of what the engine had scored when it decided, where that
    /// is earlier than ``atSeconds`` (the Whisper keyword scorer: ``atSeconds`` adds its scoring
    /// time); nil: ``atSeconds``. The command capture starts from here, so a scorer that answers
    /// late on a loaded machine does not cut off the command spoken meanwhile.
    public var heardUntilSeconds: Double?

    /// A hit.
    public init(
        trigger: String, engine: String, atSeconds: Double, score: Double, threshold: Double? = nil,
        heardUntilSeconds: Double? = nil
    ) {
        self.trigger = trigger
        self.engine = engine
        self.atSeconds = atSeconds
        self.score = score
        self.threshold = threshold
        self.heardUntilSeconds = heardUntilSeconds
    }

    /// Where the command after the trigger can start: ``heardUntilSeconds``, else ``atSeconds``.
    public var commandStartSeconds: Double { heardUntilSeconds ?? atSeconds }
}
