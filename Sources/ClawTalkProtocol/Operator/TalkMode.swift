/// `talk.mode` params `{enabled, phase?}` (talk.md §5.2; send `{enabled:false}` on exit).
public struct TalkModeParams: Sendable, Hashable, Codable {
    /// Whether Talk mode is on.
    public var enabled: Bool
    /// Current phase (free-form); omitted when nil or empty.
    public var phase: String?

    /// Params with a raw phase.
    public init(enabled: Bool, phase: String? = nil) {
        self.enabled = enabled
        self.phase = phase
    }

    /// Params with a known phase.
    public init(enabled: Bool, phase: TalkPhase) {
        self.init(enabled: enabled, phase: phase.rawValue)
    }

    /// Encodes `enabled` and a non-empty `phase`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(enabled, forKey: .enabled)
        try container.encodeIfNonEmpty(phase, forKey: .phase)
    }
}

/// `talk.mode` event `{enabled, phase|null, ts}` broadcast by the Gateway, read leniently.
public struct TalkModeEvent: Sendable, Hashable, Encodable {
    /// Whether Talk mode is on.
    public var enabled: Bool
    /// Phase, nil for `null` or absent.
    public var phase: String?
    /// Gateway time, milliseconds.
    public var ts: Int64?

    /// An event with the given values.
    public init(enabled: Bool, phase: String? = nil, ts: Int64? = nil) {
        self.enabled = enabled
        self.phase = phase
        self.ts = ts
    }

    /// Reads the payload; `enabled` is required.
    public init(json: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "talk.mode")
        self.init(enabled: try reader.requiredBool("enabled"), phase: reader.string("phase"), ts: reader.int64("ts"))
    }

    /// ``phase`` as a known value.
    public var talkPhase: TalkPhase? {
        phase.flatMap(TalkPhase.init(rawValue:))
    }
}

/// Talk mode phases clawtalk reports.
public enum TalkPhase: String, Sendable, Hashable, Codable, CaseIterable {
    /// Capturing the user's turn.
    case listening
    /// Waiting for the reply.
    case thinking
    /// Playing the reply.
    case speaking
}
