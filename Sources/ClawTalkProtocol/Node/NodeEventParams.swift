/// `node.event` params (closed, protocol.md §10.5): clawtalk sends `{event, payloadJSON}`
/// with a JSON text payload, never `payload` and never `payloadJSON:null`.
public struct NodeEventParams: Sendable, Hashable, Codable {
    /// The request method.
    public static let method = NodeMethod.event.rawValue

    /// Event name.
    public var event: String
    /// Payload as JSON text.
    public var payloadJSON: String

    /// Params with a ready JSON text payload.
    public init(event: String, payloadJSON: String) {
        self.event = event
        self.payloadJSON = payloadJSON
    }

    /// Params with `payload` encoded as JSON text (sorted keys, nil optionals omitted).
    public init(event: NodeEventName, payload: some Encodable) throws(ProtocolError) {
        self.init(event: event.rawValue, payloadJSON: try WireJSON(encoding: payload).encodedString())
    }

    /// `voice.transcript`.
    public static func voiceTranscript(_ payload: VoiceTranscriptEvent) throws(ProtocolError) -> NodeEventParams {
        try NodeEventParams(event: .voiceTranscript, payload: payload)
    }

    /// `chat.subscribe {sessionKey}`.
    public static func chatSubscribe(sessionKey: String) throws(ProtocolError) -> NodeEventParams {
        try NodeEventParams(event: .chatSubscribe, payload: ChatSubscribe(sessionKey: sessionKey))
    }

    /// `chat.unsubscribe {sessionKey}`.
    public static func chatUnsubscribe(sessionKey: String) throws(ProtocolError) -> NodeEventParams {
        try NodeEventParams(event: .chatUnsubscribe, payload: ChatSubscribe(sessionKey: sessionKey))
    }

    /// `node.presence.alive {trigger}`.
    public static func presenceAlive(_ payload: NodePresenceAlive) throws(ProtocolError) -> NodeEventParams {
        try NodeEventParams(event: .presenceAlive, payload: payload)
    }

    /// The request frame carrying this event.
    public func requestFrame(id: String = WireID.make()) throws(ProtocolError) -> RequestFrame {
        try RequestFrame(id: id, method: Self.method, encoding: self)
    }
}

/// `node.event` response payload `{ok, event, handled, reason?}` (old gateways: `{ok:true}`).
public struct NodeEventResult: Sendable, Hashable, Encodable {
    /// Accepted.
    public var ok: Bool
    /// Echoed event name.
    public var event: String?
    /// Whether the Gateway acted on it.
    public var handled: Bool?
    /// Why it was not handled.
    public var reason: String?

    /// A result with the given values.
    public init(ok: Bool, event: String? = nil, handled: Bool? = nil, reason: String? = nil) {
        self.ok = ok
        self.event = event
        self.handled = handled
        self.reason = reason
    }

    /// Reads the payload leniently (absent → `ok:true`).
    public init(json: WireJSON?) {
        self.init(
            ok: json?["ok"]?.boolValue ?? true, event: json?["event"]?.stringValue,
            handled: json?["handled"]?.boolValue,
            reason: json?["reason"]?.stringValue)
    }
}
