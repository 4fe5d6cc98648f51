/// `{type:"event", event, payload?, seq?, stateVersion?}`: a Gateway push. `seq` is present
/// on broadcasts only and is never required (protocol.md §3).
public struct EventFrame: Sendable, Hashable {
    /// The frame's `type` value.
    public static let type = "event"

    /// Event name, e.g. `connect.challenge`, `node.invoke.request`, `chat`.
    public var event: String
    /// Event payload (absent or `null` reads as nil).
    public var payload: WireJSON?
    /// Per-connection broadcast sequence number, when sent as a non-negative integer.
    public var seq: Int?
    /// Presence/health state versions, when sent.
    public var stateVersion: StateVersion?

    /// An event with the given fields.
    public init(event: String, payload: WireJSON? = nil, seq: Int? = nil, stateVersion: StateVersion? = nil) {
        self.event = event
        self.payload = payload
        self.seq = seq
        self.stateVersion = stateVersion
    }

    /// Reads an event frame object. `event` is required; a malformed `seq` or `stateVersion`
    /// reads as absent.
    public init(json: WireJSON) throws(ProtocolError) {
        guard let object = json.objectValue else { throw .malformedFrame("frame is not an object") }
        guard let event = object["event"]?.stringValue else { throw .malformedFrame("event without name") }
        let seq = object["seq"]?.intValue.flatMap { $0 >= 0 ? $0 : nil }
        self.init(
            event: event, payload: object["payload"].nonNull, seq: seq,
            stateVersion: object["stateVersion"].flatMap(StateVersion.init(json:)))
    }

    /// The event name as a known vocabulary value, if it is one.
    public var name: GatewayEventName? {
        GatewayEventName(rawValue: event)
    }

    /// The frame as JSON, keys in order `type, event, payload, seq, stateVersion`.
    public var wireJSON: WireJSON {
        var object: WireObject = ["type": .string(Self.type), "event": .string(event)]
        if let payload { object["payload"] = payload }
        if let seq { object["seq"] = .integer(Int64(seq)) }
        if let stateVersion { object["stateVersion"] = stateVersion.wireJSON }
        return .object(object)
    }

    /// The frame as compact UTF-8 JSON text.
    public func encodedText() -> String {
        wireJSON.encodedString()
    }
}

/// `stateVersion {presence, health}` of an event frame.
public struct StateVersion: Sendable, Hashable {
    /// Presence state version.
    public var presence: Int?
    /// Health state version.
    public var health: Int?

    /// A state version with the given counters.
    public init(presence: Int?, health: Int?) {
        self.presence = presence
        self.health = health
    }

    /// Reads `{presence, health}`; nil when not an object.
    public init?(json: WireJSON) {
        guard let object = json.objectValue else { return nil }
        self.init(presence: object["presence"]?.intValue, health: object["health"]?.intValue)
    }

    /// The value as JSON (absent counters omitted).
    public var wireJSON: WireJSON {
        var object = WireObject()
        if let presence { object["presence"] = .integer(Int64(presence)) }
        if let health { object["health"] = .integer(Int64(health)) }
        return .object(object)
    }
}
