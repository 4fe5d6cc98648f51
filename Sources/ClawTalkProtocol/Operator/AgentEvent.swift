/// `agent` event `{runId, stream, data{text, phase, status}}` (talk-contract §4.1; operator
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
    /// Assistant text.
    public var text: String?
    /// Lifecycle phase.
    public var phase: String?
    /// Lifecycle status.
    public var status: String?

    /// Data with the given values.
    public init(text: String? = nil, phase: String? = nil, status: String? = nil) {
        self.text = text
        self.phase = phase
        self.status = status
    }

    /// Reads `data`; anything but an object reads as empty.
    public init(json: WireJSON?) {
        self.init(
            text: json?["text"]?.stringValue, phase: json?["phase"]?.stringValue, status: json?["status"]?.stringValue)
    }
}
