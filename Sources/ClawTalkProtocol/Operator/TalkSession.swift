/// `talk.session.create` params for a transcription relay session (talk.md §9.1):
/// `{mode:"transcription", transport:"gateway-relay", brain:"none", sessionKey?, language?, ttlMs?}`.
/// `provider`, `model` and `voice` are omitted (which are required in this mode is UNVERIFIED
/// upstream; omitting them is the contract's safe choice).
public struct TalkSessionCreateParams: Sendable, Hashable, Codable {
    /// Always `transcription`.
    public var mode: String
    /// Always `gateway-relay`.
    public var transport: String
    /// Always `none`: the relay only transcribes.
    public var brain: String
    /// Session the transcript belongs to; omitted when nil or empty.
    public var sessionKey: String?
    /// Two-letter language code; omitted when nil or not two letters.
    public var language: String?
    /// Session lifetime, 1000–3600000 ms; omitted when nil.
    public var ttlMs: Int?

    /// Accepted range of ``ttlMs``.
    public static let ttlRange = 1_000...3_600_000

    /// Transcription-relay params; `language` is reduced to its two-letter primary subtag and
    /// dropped when it has none, `ttlMs` is clamped into ``ttlRange``.
    public init(sessionKey: String? = nil, language: String? = nil, ttlMs: Int? = nil) {
        mode = "transcription"
        transport = "gateway-relay"
        brain = "none"
        self.sessionKey = sessionKey
        self.language = Self.twoLetter(language)
        self.ttlMs = ttlMs.map { min(max($0, Self.ttlRange.lowerBound), Self.ttlRange.upperBound) }
    }

    /// `en-US` → `en`; nil unless the primary subtag is two ASCII letters.
    static func twoLetter(_ language: String?) -> String? {
        guard let language else { return nil }
        let primary = language.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? ""
        guard primary.count == 2, primary.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return primary.lowercased()
    }

    /// Encodes the fixed fields and the non-empty optional ones.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mode, forKey: .mode)
        try container.encode(transport, forKey: .transport)
        try container.encode(brain, forKey: .brain)
        try container.encodeIfNonEmpty(sessionKey, forKey: .sessionKey)
        try container.encodeIfNonEmpty(language, forKey: .language)
        try container.encodeIfPresent(ttlMs, forKey: .ttlMs)
    }
}

/// `talk.session.create` result, read leniently: `{sessionId, relaySessionId, audio:{inputEncoding,
/// inputSampleRateHz, …}, provider, model, expiresAt}`.
public struct TalkSessionCreated: Sendable, Hashable {
    /// The session to append to and close.
    public var sessionId: String
    /// The id relay events carry: `transcriptionSessionId` (current upstream), else
    /// `relaySessionId` (older builds), else `sessionId`.
    public var relaySessionId: String
    /// Every id this session's events may carry (`sessionId`, `transcriptionSessionId`,
    /// `relaySessionId`): events are matched by any of them.
    public var eventSessionIds: Set<String>
    /// Input encoding the gateway expects, as stated (`pcm16` when absent; current upstream
    /// states `g711_ulaw`).
    public var inputEncoding: String
    /// Input sample rate the gateway expects (24000 when absent; current upstream states 8000).
    public var inputSampleRateHz: Int
    /// Provider, informational.
    public var provider: String?
    /// Model, informational.
    public var model: String?

    /// Reads the payload; `sessionId` is required.
    public init(json: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "talk.session.create")
        sessionId = try reader.requiredString("sessionId")
        let transcriptionId = reader.string("transcriptionSessionId")
        let relayId = reader.string("relaySessionId")
        relaySessionId = transcriptionId ?? relayId ?? sessionId
        eventSessionIds = Set([sessionId, transcriptionId, relayId].compactMap { $0 })
        let audio = reader["audio"]
        inputEncoding = audio?["inputEncoding"]?.stringValue ?? "pcm16"
        inputSampleRateHz = audio?["inputSampleRateHz"]?.intValue ?? 24_000
        provider = reader.string("provider")
        model = reader.string("model")
    }
}

/// `talk.session.appendAudio` params `{sessionId, audioBase64, timestamp}`: the audio in the
/// session's stated encoding and rate (G.711 μ-law 8 kHz upstream today, pcm16 LE on older
/// builds); `timestamp` is an integer number of milliseconds (the chunk's start in the session's
/// audio).
public struct TalkSessionAppendAudioParams: Sendable, Hashable, Codable {
    /// The session.
    public var sessionId: String
    /// The chunk, base64.
    public var audioBase64: String
    /// Start of the chunk, ms since the session's first sample.
    public var timestamp: Int64

    /// Params for one chunk.
    public init(sessionId: String, audioBase64: String, timestamp: Int64) {
        self.sessionId = sessionId
        self.audioBase64 = audioBase64
        self.timestamp = timestamp
    }
}

/// `talk.session.close` params `{sessionId}`.
public struct TalkSessionCloseParams: Sendable, Hashable, Codable {
    /// The session.
    public var sessionId: String

    /// Params closing `sessionId`.
    public init(sessionId: String) {
        self.sessionId = sessionId
    }
}
