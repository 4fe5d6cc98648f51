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

    /// A hit.
    public init(trigger: String, engine: String, atSeconds: Double, score: Double, threshold: Double? = nil) {
        self.trigger = trigger
        self.engine = engine
        self.atSeconds = atSeconds
        self.score = score
        self.threshold = threshold
    }
}
