/// Voice settings an assistant reply may carry on its first non-empty line as a one-line JSON
/// object (talk.md §5.6). Values outside the allowed ranges are dropped at parse time,
/// so nothing out of range is ever sent. ``voice`` may still be an alias; resolve it with
/// ``resolveVoiceId(aliases:)``.
public struct TalkDirective: Sendable, Hashable {
    /// `voice`/`voice_id`/`voiceId` as written: an alias or a raw provider id.
    public var voice: String?
    /// `model`/`model_id`/`modelId`.
    public var modelId: String?
    /// `speed`, 0.5–2.
    public var speed: Double?
    /// `rate` in words per minute; `rateWpm / 175` strictly between 0.5 and 2.
    public var rateWpm: Int?
    /// `stability`, 0–1.
    public var stability: Double?
    /// `similarity`, 0–1.
    public var similarity: Double?
    /// `style`, 0–1.
    public var style: Double?
    /// `speakerBoost`.
    public var speakerBoost: Bool?
    /// `seed`, ≥ 0.
    public var seed: Int?
    /// `normalize` (`auto`, `on`, `off`).
    public var normalize: String?
    /// `lang`: the `language` param, and the espeak-ng voice.
    public var language: String?
    /// `output_format`.
    public var outputFormat: String?
    /// `latency_tier`, 0–4.
    public var latencyTier: Int?
    /// `once:true`: this reply only; otherwise the values become the Talk session default.
    public var once: Bool
    /// Keys that were not recognized (ignored; for logging), sorted.
    public var unknownKeys: [String]
    /// Recognized keys whose values had the wrong type or were out of range (dropped), sorted.
    public var droppedKeys: [String]

    /// A directive with the given values.
    public init(
        voice: String? = nil, modelId: String? = nil, speed: Double? = nil, rateWpm: Int? = nil,
        stability: Double? = nil, similarity: Double? = nil, style: Double? = nil, speakerBoost: Bool? = nil,
        seed: Int? = nil, normalize: String? = nil, language: String? = nil, outputFormat: String? = nil,
        latencyTier: Int? = nil, once: Bool = false, unknownKeys: [String] = [], droppedKeys: [String] = []
    ) {
        self.voice = voice
        self.modelId = modelId
        self.speed = speed
        self.rateWpm = rateWpm
        self.stability = stability
        self.similarity = similarity
        self.style = style
        self.speakerBoost = speakerBoost
        self.seed = seed
        self.normalize = normalize
        self.language = language
        self.outputFormat = outputFormat
        self.latencyTier = latencyTier
        self.once = once
        self.unknownKeys = unknownKeys
        self.droppedKeys = droppedKeys
    }

    /// The provider voice id: the alias's id (alias match ignores case), else ``voice`` itself
    /// when it looks like a raw id (≥ 10 characters of `[A-Za-z0-9_-]`), else nil.
    public func resolveVoiceId(aliases: [String: String]) -> String? {
        guard let voice else { return nil }
        if let id = aliases[voice] { return id }
        let lowered = voice.lowercased()
        if let match = aliases.first(where: { $0.key.lowercased() == lowered }) { return match.value }
        return Self.looksLikeRawVoiceId(voice) ? voice : nil
    }

    /// ≥ 10 characters, all ASCII letters, digits, `_` or `-`.
    public static func looksLikeRawVoiceId(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        return bytes.count >= 10
            && bytes.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: "-")
            }
    }

    /// This directive with its unset values taken from `base` (e.g. the session default).
    public func filling(from base: TalkDirective?) -> TalkDirective {
        guard let base else { return self }
        var merged = self
        merged.voice = voice ?? base.voice
        merged.modelId = modelId ?? base.modelId
        merged.speed = speed ?? base.speed
        merged.rateWpm = rateWpm ?? base.rateWpm
        merged.stability = stability ?? base.stability
        merged.similarity = similarity ?? base.similarity
        merged.style = style ?? base.style
        merged.speakerBoost = speakerBoost ?? base.speakerBoost
        merged.seed = seed ?? base.seed
        merged.normalize = normalize ?? base.normalize
        merged.language = language ?? base.language
        merged.outputFormat = outputFormat ?? base.outputFormat
        merged.latencyTier = latencyTier ?? base.latencyTier
        return merged
    }

    /// `talk.speak` params for `text`: the directive's values, the voice resolved through
    /// `voiceAliases` (unresolvable voices are left out), and the directive's `output_format`
    /// or else `outputFormat` (nil omits it).
    public func speakParams(text: String, voiceAliases: [String: String] = [:], outputFormat: String?)
        -> TalkSpeakParams
    {
        TalkSpeakParams(
            text: text, voiceId: resolveVoiceId(aliases: voiceAliases), modelId: modelId,
            outputFormat: self.outputFormat ?? outputFormat, speed: speed, rateWpm: rateWpm, stability: stability,
            similarity: similarity, style: style, speakerBoost: speakerBoost, seed: seed, normalize: normalize,
            language: language, latencyTier: latencyTier)
    }
}
