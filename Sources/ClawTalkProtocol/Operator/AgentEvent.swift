/// `agent` event `{runId, stream, data{text, phase, status}}` (talk.md §4.1; operator
/// only), read leniently. `stream` stays raw; see ``streamKind``.
public struct AgentEvent: Sendable, Hashable, Encodable {
    /// The run.
    public var runId: String
    /// Raw stream name.
    public var stream: String
    /// Sequence number, when sent.
    public var seq: Int?
    /// Stream data.
    public var data: AgentEventData
    /// Top-level `phase`, when sent.
    public var phase: String?
    /// Top-level `status`, when sent.
    public var status: String?

    /// An event with the given values.
    public init(
        runId: String, stream: String, seq: Int? = nil, data: AgentEventData = AgentEventData(), phase: String? = nil,
        status: String? = nil
    ) {
        self.runId = runId
        self.stream = stream
        self.seq = seq
        self.data = data
        self.phase = phase
        self.status = status
    }

    /// Reads the payload; `runId` and `stream` are required.
    public init(json: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "agent")
        self.init(
            runId: try reader.requiredString("runId"), stream: try reader.requiredString("stream"),
            seq: reader.int("seq"),
            data: AgentEventData(json: reader["data"]), phase: reader.string("phase"), status: reader.string("status"))
    }

    /// ``stream`` as a known value.
    public var streamKind: AgentStream? {
        AgentStream(rawValue: stream)
    }

    /// Assistant text of an `assistant` stream event.
    public var assistantText: String? {
        streamKind == .assistant ? data.text : nil
    }

    /// Whether this is an `assistant` stream event carrying any text (``AgentEventData/text`` or
    /// ``AgentEventData/delta``) or a `replace` mark.
    public var isAssistantUpdate: Bool {
        streamKind == .assistant && (data.text != nil || data.delta != nil || data.replace == true)
    }

    /// A `lifecycle` event with `phase:"end"` or `status:"ok"` in the payload or its `data`:
    /// the run is done.
    public var isLifecycleEnd: Bool {
        guard streamKind == .lifecycle else { return false }
        return phase == "end" || data.phase == "end" || status == "ok" || data.status == "ok"
    }
}

/// Known `agent` event streams.
public enum AgentStream: String, Sendable, Hashable, Codable, CaseIterable {
    /// Incremental assistant text.
    case assistant
    /// Run lifecycle (start/end).
    case lifecycle
    /// Tool activity.
    case tool
}

/// `agent` event `data`, read leniently.
public struct AgentEventData: Sendable, Hashable, Encodable {
    /// Assistant text (cumulative: everything so far).
    public var text: String?
    /// Lifecycle phase.
    public var phase: String?
    /// Lifecycle status.
    public var status: String?
    /// Only the new part of the assistant text, when sent.
    public var delta: String?
    /// `replace:true`: ``text`` restarts the reply instead of extending it (UNVERIFIED upstream).
    public var replace: Bool?

    /// Data with the given values.
    public init(
        text: String? = nil, phase: String? = nil, status: String? = nil, delta: String? = nil, replace: Bool? = nil
    ) {
        self.text = text
        self.phase = phase
        self.status = status
        self.delta = delta
        self.replace = replace
    }

    /// Reads `data`; anything but an object reads as empty.
    public init(json: WireJSON?) {
        self.init(
            text: json?["text"]?.stringValue, phase: json?["phase"]?.stringValue, status: json?["status"]?.stringValue,
            delta: json?["delta"]?.stringValue, replace: json?["replace"]?.boolValue)
    }
}
