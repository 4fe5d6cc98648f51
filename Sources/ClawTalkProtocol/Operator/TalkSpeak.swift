public import Foundation

/// `talk.speak` params (closed, `TalkSpeakParamsSchema`, talk.md §7.1): only `text` is
/// required (non-empty); every nil field is omitted.
public struct TalkSpeakParams: Sendable, Hashable, Codable {
    /// Text to speak.
    public var text: String
    /// Provider voice id.
    public var voiceId: String?
    /// Provider model id.
    public var modelId: String?
    /// Requested output format, e.g. `pcm_24000`.
    public var outputFormat: String?
    /// Speed factor (0.5–2).
    public var speed: Double?
    /// Words per minute (≥ 1).
    public var rateWpm: Int?
    /// Stability (0–1).
    public var stability: Double?
    /// Similarity (0–1).
    public var similarity: Double?
    /// Style (0–1).
    public var style: Double?
    /// Speaker boost.
    public var speakerBoost: Bool?
    /// Seed (≥ 0).
    public var seed: Int?
    /// Text normalization mode (`auto`, `on`, `off`).
    public var normalize: String?
    /// Language code.
    public var language: String?
    /// Latency tier (0–4).
    public var latencyTier: Int?

    /// Params with the given values.
    public init(
        text: String, voiceId: String? = nil, modelId: String? = nil, outputFormat: String? = nil, speed: Double? = nil,
        rateWpm: Int? = nil, stability: Double? = nil, similarity: Double? = nil, style: Double? = nil,
        speakerBoost: Bool? = nil, seed: Int? = nil, normalize: String? = nil, language: String? = nil,
        latencyTier: Int? = nil
    ) {
        self.text = text
        self.voiceId = voiceId
        self.modelId = modelId
        self.outputFormat = outputFormat
        self.speed = speed
        self.rateWpm = rateWpm
        self.stability = stability
        self.similarity = similarity
        self.style = style
        self.speakerBoost = speakerBoost
        self.seed = seed
        self.normalize = normalize
        self.language = language
        self.latencyTier = latencyTier
    }

    /// Client timeout (macOS formula): `max(30 s, clamp(chars × 0.12 s, 20 s, 90 s) + 5 s)`.
    public static func timeoutMs(forCharacterCount count: Int) -> Int {
        let scaled = min(max(count * 120, 20_000), 90_000)
        return max(30_000, scaled + 5_000)
    }

    /// ``timeoutMs(forCharacterCount:)`` for this text.
    public var timeoutMs: Int {
        Self.timeoutMs(forCharacterCount: text.count)
    }

    /// Encodes the closed key set, omitting nil and empty optional strings.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        try container.encodeIfNonEmpty(voiceId, forKey: .voiceId)
        try container.encodeIfNonEmpty(modelId, forKey: .modelId)
        try container.encodeIfNonEmpty(outputFormat, forKey: .outputFormat)
        try container.encodeIfPresent(speed, forKey: .speed)
        try container.encodeIfPresent(rateWpm, forKey: .rateWpm)
        try container.encodeIfPresent(stability, forKey: .stability)
        try container.encodeIfPresent(similarity, forKey: .similarity)
        try container.encodeIfPresent(style, forKey: .style)
        try container.encodeIfPresent(speakerBoost, forKey: .speakerBoost)
        try container.encodeIfPresent(seed, forKey: .seed)
        try container.encodeIfNonEmpty(normalize, forKey: .normalize)
        try container.encodeIfNonEmpty(language, forKey: .language)
        try container.encodeIfPresent(latencyTier, forKey: .latencyTier)
    }
}

/// `tts.speak` params `{text}` (talk.md §7.3).
public struct TTSSpeakParams: Sendable, Hashable, Codable {
    /// Text to speak.
    public var text: String

    /// Params for `text`.
    public init(text: String) {
        self.text = text
    }
}

/// `talk.speak` / `tts.speak` result `{audioBase64, provider, outputFormat?, voiceCompatible?,
/// mimeType?, fileExtension?}`, read leniently (`tts.speak` has no `voiceCompatible`).
public struct TalkSpeakResult: Sendable, Hashable, Encodable {
    /// The whole clip, standard base64.
    public var audioBase64: String
    /// Provider that synthesized it.
    public var provider: String
    /// Provider format, e.g. `pcm_24000`, `mp3_44100_128`.
    public var outputFormat: String?
    /// Whether the clip suits voice-note playback.
    public var voiceCompatible: Bool?
    /// MIME type, e.g. `audio/mpeg`.
    public var mimeType: String?
    /// File extension, e.g. `.mp3`.
    public var fileExtension: String?

    /// A result with the given values.
    public init(
        audioBase64: String, provider: String, outputFormat: String? = nil, voiceCompatible: Bool? = nil,
        mimeType: String? = nil, fileExtension: String? = nil
    ) {
        self.audioBase64 = audioBase64
        self.provider = provider
        self.outputFormat = outputFormat
        self.voiceCompatible = voiceCompatible
        self.mimeType = mimeType
        self.fileExtension = fileExtension
    }

    /// Reads the payload; `audioBase64` is required, `provider` defaults to `""`.
    public init(json: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "talk.speak result")
        self.init(
            audioBase64: try reader.requiredString("audioBase64"), provider: reader.string("provider") ?? "",
            outputFormat: reader.string("outputFormat"), voiceCompatible: reader.bool("voiceCompatible"),
            mimeType: reader.string("mimeType"), fileExtension: reader.string("fileExtension"))
    }

    /// The decoded clip bytes; nil when `audioBase64` is not valid base64.
    public func audioData() -> Data? {
        Data(base64Encoded: audioBase64, options: .ignoreUnknownCharacters)
    }
}

/// `details.reason` of an `UNAVAILABLE` `talk.speak` failure (talk.md §7.1).
public enum TalkSpeakFailureReason: String, Sendable, Hashable, CaseIterable {
    /// No Talk provider configured (fallback-eligible).
    case talkUnconfigured = "talk_unconfigured"
    /// Provider cannot synthesize here (fallback-eligible).
    case talkProviderUnsupported = "talk_provider_unsupported"
    /// Method not available (fallback-eligible).
    case methodUnavailable = "method_unavailable"
    /// The provider failed (not fallback-eligible).
    case synthesisFailed = "synthesis_failed"
    /// The provider returned unusable audio (not fallback-eligible).
    case invalidAudioResult = "invalid_audio_result"

    /// Eligible for the `tts.speak`/espeak-ng fallback when `details.fallbackEligible` is absent.
    public var isFallbackEligible: Bool {
        switch self {
        case .talkUnconfigured, .talkProviderUnsupported, .methodUnavailable: true
        case .synthesisFailed, .invalidAudioResult: false
        }
    }
}
