/// `node.invoke.request` event payload (protocol.md §10.2). `sessionKey` (newest
/// gateways) is ignored.
public struct NodeInvokeRequest: Sendable, Hashable, Encodable {
    /// Invoke id; echoed in the result.
    public var id: String
    /// Target node (= deviceId); invokes for another id are ignored.
    public var nodeId: String
    /// Command, e.g. `talk.ptt.start`.
    public var command: String
    /// Params as JSON text; nil for `null` or absent.
    public var paramsJSON: String?
    /// Gateway deadline; see ``effectiveTimeoutMs``.
    public var timeoutMs: Int?
    /// Dedupe key.
    public var idempotencyKey: String?
    /// `paramsJSON` was present with a type other than string or null.
    private var paramsHaveWrongType = false

    /// A request with the given values.
    public init(
        id: String, nodeId: String, command: String, paramsJSON: String? = nil, timeoutMs: Int? = nil,
        idempotencyKey: String? = nil
    ) {
        self.id = id
        self.nodeId = nodeId
        self.command = command
        self.paramsJSON = paramsJSON
        self.timeoutMs = timeoutMs
        self.idempotencyKey = idempotencyKey
    }

    /// Reads the event payload. `id` and `command` are required non-empty strings so the
    /// invoke can be answered; a wrongly typed `paramsJSON` surfaces later from ``params()``.
    public init(json: WireJSON?) throws(ProtocolError) {
        let reader = try PayloadReader(json, what: "node.invoke.request")
        let id = try reader.requiredString("id")
        let command = try reader.requiredString("command")
        guard !id.isEmpty, !command.isEmpty else { throw .invalidPayload("node.invoke.request: empty id or command") }
        self.init(
            id: id, nodeId: reader.string("nodeId") ?? "", command: command, paramsJSON: reader.string("paramsJSON"),
            timeoutMs: reader.int("timeoutMs"), idempotencyKey: reader.string("idempotencyKey"))
        if let raw = reader["paramsJSON"], raw.stringValue == nil, !raw.isNull { paramsHaveWrongType = true }
    }

    /// `command` as a talk command, if it is one.
    public var talkCommand: TalkCommand? {
        TalkCommand(rawValue: command)
    }

    /// The Gateway deadline: `timeoutMs`, or 30000 when 0, negative or absent.
    public var effectiveTimeoutMs: Int {
        guard let timeoutMs, timeoutMs > 0 else { return GatewayLimits.defaultInvokeTimeoutMs }
        return timeoutMs
    }

    /// The params object. `null`, absent, `""` (or whitespace, or the JSON text `null`) mean
    /// `{}`; unknown keys are returned and may be ignored.
    /// - Throws: ``NodeError`` `INVALID_REQUEST` when the text is not JSON or not an object.
    public func params() throws(NodeError) -> [String: WireJSON] {
        if paramsHaveWrongType { throw .invalidRequest("paramsJSON must be a JSON string") }
        guard let paramsJSON, !paramsJSON.trimmingWhitespace().isEmpty else { return [:] }
        let value: WireJSON
        do {
            value = try WireJSON(parsing: paramsJSON)
        } catch {
            throw .invalidRequest("paramsJSON is not valid JSON")
        }
        switch value {
        case .null: return [:]
        case .object(let object): return object.dictionary
        default: throw .invalidRequest("paramsJSON must be a JSON object")
        }
    }

    private enum CodingKeys: String, CodingKey {
        case id, nodeId, command, paramsJSON, timeoutMs, idempotencyKey
    }
}
