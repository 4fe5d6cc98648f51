/// `talk.session.cancelOutput {sessionId, turnId, reason:"barge-in"}` (talk.md §9.2 item 4):
/// the user spoke over the reply `turnId`.
public struct TalkSessionCancelOutputParams: Sendable, Hashable, Codable {
    /// The session.
    public var sessionId: String
    /// The reply being cancelled.
    public var turnId: String
    /// Always `barge-in`.
    public var reason: String

    /// Params cancelling `turnId` for a barge-in.
    public init(sessionId: String, turnId: String) {
        self.sessionId = sessionId
        self.turnId = turnId
        reason = "barge-in"
    }
}

/// What `talk.session.cancelOutput` answered: `applied`, `stale` or `idle` (any is fine; others
/// read as ``other``).
public enum TalkSessionCancelStatus: String, Sendable, Hashable {
    /// The provider stopped the reply.
    case applied
    /// The reply had already ended.
    case stale
    /// Nothing was playing.
    case idle
    /// Anything else (or no status).
    case other

    /// Reads `{status}`.
    public init(json: WireJSON?) {
        self = json?["status"]?.stringValue.flatMap(Self.init(rawValue:)) ?? .other
    }
}

/// `talk.session.acknowledgeMark {sessionId, name}` (older gateways: `talk.realtime.relayMark`
/// with the same params): the audio queued before mark `name` has played.
public struct TalkSessionAcknowledgeMarkParams: Sendable, Hashable, Codable {
    /// The session.
    public var sessionId: String
    /// The mark's name, as received.
    public var name: String

    /// Params acknowledging `name`.
    public init(sessionId: String, name: String) {
        self.sessionId = sessionId
        self.name = name
    }
}

/// `talk.session.submitToolResult {sessionId, callId, error}`: the answer of a node that cannot
/// run a tool call (with brain `agent-consult` the gateway owns tools; talk.md §9.2 item 3).
public struct TalkSessionSubmitToolResultParams: Sendable, Hashable, Codable {
    /// The session.
    public var sessionId: String
    /// The call being answered.
    public var callId: String
    /// Why the node did not run it.
    public var error: String

    /// A refusal of `callId`.
    public init(sessionId: String, callId: String, error: String) {
        self.sessionId = sessionId
        self.callId = callId
        self.error = error
    }
}
