/// `talk.session.create` params for realtime Talk over the gateway relay (talk.md §9.2):
/// `{sessionKey, mode:"realtime", transport:"gateway-relay", brain:"agent-consult", provider?,
/// model?, voice?, language?, vadThreshold?, silenceDurationMs?, prefixPaddingMs?, ttlMs?}`.
/// Closed: absent optional values are omitted, never sent as `null` or `""`.
public struct RealtimeSessionCreateParams: Sendable, Hashable, Encodable {
    /// The chat session the realtime conversation belongs to.
    public var sessionKey: String
    /// Provider id from `talk.realtime`, when configured.
    public var provider: String?
    /// Model id from `talk.realtime`, when configured.
    public var model: String?
    /// Voice from `talk.realtime`, when configured.
    public var voice: String?
    /// Two-letter language code; dropped when the locale has none.
    public var language: String?
    /// The provider's server-VAD threshold (0–1).
    public var vadThreshold: Double?
    /// Silence that ends a user turn at the provider, ms.
    public var silenceDurationMs: Int?
    /// Audio kept before detected speech, ms.
    public var prefixPaddingMs: Int?
    /// Session lifetime, clamped into ``TalkSessionCreateParams/ttlRange``.
    public var ttlMs: Int?

    /// Params from the gateway's `talk.realtime` values; `language` is reduced to its primary
    /// subtag, out-of-range values are dropped (`vadThreshold` outside 0–1, negative durations).
    public init(
        sessionKey: String, provider: String? = nil, model: String? = nil, voice: String? = nil,
        language: String? = nil, vadThreshold: Double? = nil, silenceDurationMs: Int? = nil,
        prefixPaddingMs: Int? = nil, ttlMs: Int? = nil
    ) {
        self.sessionKey = sessionKey
        self.provider = provider
        self.model = model
        self.voice = voice
        self.language = TalkSessionCreateParams.twoLetter(language)
        self.vadThreshold = vadThreshold.flatMap { (0...1).contains($0) ? $0 : nil }
        self.silenceDurationMs = silenceDurationMs.flatMap { $0 >= 0 ? $0 : nil }
        self.prefixPaddingMs = prefixPaddingMs.flatMap { $0 >= 0 ? $0 : nil }
        let range = TalkSessionCreateParams.ttlRange
        self.ttlMs = ttlMs.map { min(max($0, range.lowerBound), range.upperBound) }
    }

    private enum CodingKeys: String, CodingKey {
        case sessionKey, mode, transport, brain, provider, model, voice, language, vadThreshold, silenceDurationMs,
            prefixPaddingMs, ttlMs
    }

    /// Encodes the fixed fields and the present optional ones.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sessionKey, forKey: .sessionKey)
        try container.encode("realtime", forKey: .mode)
        try container.encode("gateway-relay", forKey: .transport)
        try container.encode("agent-consult", forKey: .brain)
        try container.encodeIfNonEmpty(provider, forKey: .provider)
        try container.encodeIfNonEmpty(model, forKey: .model)
        try container.encodeIfNonEmpty(voice, forKey: .voice)
        try container.encodeIfNonEmpty(language, forKey: .language)
        try container.encodeIfPresent(vadThreshold, forKey: .vadThreshold)
        try container.encodeIfPresent(silenceDurationMs, forKey: .silenceDurationMs)
        try container.encodeIfPresent(prefixPaddingMs, forKey: .prefixPaddingMs)
        try container.encodeIfPresent(ttlMs, forKey: .ttlMs)
    }
}
