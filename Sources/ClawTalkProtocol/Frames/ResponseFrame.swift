/// `{type:"res", id, ok, payload?, error?}`: the Gateway's answer to a request, matched by `id`.
public struct ResponseFrame: Sendable, Hashable {
    /// The frame's `type` value.
    public static let type = "res"

    /// Id of the request this answers.
    public var id: String
    /// Whether the request succeeded.
    public var ok: Bool
    /// Result payload (absent or `null` reads as nil).
    public var payload: WireJSON?
    /// Failure, normally present when `ok` is false.
    public var error: ErrorShape?

    /// A response with the given fields.
    public init(id: String, ok: Bool, payload: WireJSON? = nil, error: ErrorShape? = nil) {
        self.id = id
        self.ok = ok
        self.payload = payload
        self.error = error
    }

    /// Reads a response frame object. `id` and `ok` are required; an `error` that is not an
    /// object is ignored.
    public init(json: WireJSON) throws(ProtocolError) {
        guard let object = json.objectValue else { throw .malformedFrame("frame is not an object") }
        guard let id = object["id"]?.stringValue else { throw .malformedFrame("response without id") }
        guard let ok = object["ok"]?.boolValue else { throw .malformedFrame("response without ok") }
        let error = object["error"].flatMap { try? ErrorShape(json: $0) }
        self.init(id: id, ok: ok, payload: object["payload"].nonNull, error: error)
    }

    /// The frame as JSON, keys in order `type, id, ok, payload, error`.
    public var wireJSON: WireJSON {
        var object: WireObject = ["type": .string(Self.type), "id": .string(id), "ok": .bool(ok)]
        if let payload { object["payload"] = payload }
        if let error { object["error"] = error.wireJSON }
        return .object(object)
    }

    /// The frame as compact UTF-8 JSON text.
    public func encodedText() -> String {
        wireJSON.encodedString()
    }
}
