/// `chat` event `{runId, sessionKey, seq, state, message, deltaText?, replace?}` (talk.md
/// §4.1, §4.3), read leniently. `state` stays raw; see ``chatState``.
public struct ChatEvent: Sendable, Hashable, Encodable {
    /// The run.
    public var runId: String
    /// The session, as the Gateway spells it.
    public var sessionKey: String
    /// Per-run sequence number, when sent.
    public var seq: Int?
    /// Raw state.
    public var state: String
    /// The message, when sent.
    public var message: ChatMessage?
    /// Error text of an `error` state, when sent.
    public var errorMessage: String?
    /// Only the text added since the gateway's previous delta of the run, when sent (newer
    /// gateways; UNVERIFIED upstream). ``message`` stays cumulative.
    public var deltaText: String?
    /// `replace:true`: ``message`` restarts the reply instead of extending it (a new LLM call
    /// inside the run; newer gateways, UNVERIFIED upstream). Nil when not sent.
    public var replace: Bool?

    /// An event with the given values.
    public init(
        runId: String, sessionKey: String, seq: Int? = nil, state: String, message: ChatMessage? = nil,
        errorMessage: String? = nil, deltaText: String? = nil, replace: Bool? = nil
    ) {
        self.runId = runId
        self.sessionKey = sessionKey
        self.seq = seq
        self.state = state
        self.message = message
        self.errorMessage = errorMessage
        self.deltaText = deltaText
        self.replace = replace
    }

    /// Reads the payload; `runId` and `state` are required.
    public init(json: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "chat")
        self.init(
            runId: try reader.requiredString("runId"), sessionKey: reader.string("sessionKey") ?? "",
            seq: reader.int("seq"), state: try reader.requiredString("state"),
            message: reader["message"].flatMap(ChatMessage.init(json:)), errorMessage: reader.string("errorMessage"),
            deltaText: reader.string("deltaText"), replace: reader.bool("replace"))
    }

    /// ``state`` as a known value.
    public var chatState: ChatEventState? {
        ChatEventState(rawValue: state)
    }

    /// The concatenated text parts of ``message`` (empty when none).
    public var text: String {
        message?.text ?? ""
    }
}

/// `chat` event states.
public enum ChatEventState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Partial reply.
    case delta
    /// The turn is complete.
    case final
    /// The run was aborted (speak nothing).
    case aborted
    /// The run failed (speak nothing).
    case error

    /// `final`, `aborted` or `error`.
    public var isTerminal: Bool {
        self != .delta
    }
}

/// A chat message `{role, content:[{type, text}]}`. A string `content` reads as one text part.
public struct ChatMessage: Sendable, Hashable, Encodable {
    /// `assistant`, `user`, …
    public var role: String
    /// Content parts.
    public var content: [ChatContentPart]

    /// A message with the given parts.
    public init(role: String, content: [ChatContentPart]) {
        self.role = role
        self.content = content
    }

    /// Reads a message; nil when not an object.
    public init?(json: WireJSON) {
        guard let object = json.objectValue else { return nil }
        let parts: [ChatContentPart]
        switch object["content"] {
        case .string(let text)?:
            parts = [ChatContentPart(type: "text", text: text)]
        case .array(let items)?:
            parts = items.compactMap(ChatContentPart.init(json:))
        default:
            parts = []
        }
        self.init(role: object["role"]?.stringValue ?? "", content: parts)
    }

    /// The `text` of all `text` parts, concatenated in order.
    public var text: String {
        content.filter { $0.type == "text" }.compactMap(\.text).joined()
    }
}

/// One content part `{type, text?}`; other part fields are ignored.
public struct ChatContentPart: Sendable, Hashable, Encodable {
    /// Part type, e.g. `text`.
    public var type: String
    /// Text of a `text` part.
    public var text: String?

    /// A part with the given values.
    public init(type: String, text: String?) {
        self.type = type
        self.text = text
    }

    /// Reads a part; nil when not an object. A part without `type` but with a string `text`
    /// counts as `text`.
    public init?(json: WireJSON) {
        guard let object = json.objectValue else { return nil }
        let text = object["text"]?.stringValue
        self.init(type: object["type"]?.stringValue ?? (text == nil ? "" : "text"), text: text)
    }
}
