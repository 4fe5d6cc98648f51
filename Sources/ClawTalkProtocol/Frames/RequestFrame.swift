/// `{type:"req", id, method, params?}`: a request from client to Gateway (protocol.md §3).
public struct RequestFrame: Sendable, Hashable {
    /// The frame's `type` value.
    public static let type = "req"

    /// Request id, unique per connection (clawtalk: lowercase UUID v4).
    public var id: String
    /// Method name, e.g. `connect` or `node.invoke.result`.
    public var method: String
    /// Params; omitted from the wire when nil.
    public var params: WireJSON?

    /// A request with ready-made params.
    public init(id: String = WireID.make(), method: String, params: WireJSON? = nil) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// A request whose params are `params` encoded (sorted keys, nil optionals omitted).
    public init(id: String = WireID.make(), method: String, encoding params: some Encodable) throws(ProtocolError) {
        self.init(id: id, method: method, params: try WireJSON(encoding: params))
    }

    /// Reads a request frame object (for test gateways); `params:null` reads as absent.
    public init(json: WireJSON) throws(ProtocolError) {
        guard let object = json.objectValue else { throw .malformedFrame("frame is not an object") }
        guard let id = object["id"]?.stringValue, !id.isEmpty else { throw .malformedFrame("request without id") }
        guard let method = object["method"]?.stringValue, !method.isEmpty else {
            throw .malformedFrame("request without method")
        }
        self.init(id: id, method: method, params: object["params"].nonNull)
    }

    /// The frame as JSON, keys in order `type, id, method, params`.
    public var wireJSON: WireJSON {
        var object: WireObject = ["type": .string(Self.type), "id": .string(id), "method": .string(method)]
        if let params { object["params"] = params }
        return .object(object)
    }

    /// The frame as compact UTF-8 JSON text, ready for a WebSocket text message.
    public func encodedText() -> String {
        wireJSON.encodedString()
    }

    /// ``encodedText()``, refusing frames whose UTF-8 size exceeds `maxBytes`.
    public func encodedText(maxBytes: Int) throws(ProtocolError) -> String {
        let text = encodedText()
        let size = text.utf8.count
        if size > maxBytes { throw .frameTooLarge(bytes: size, limit: maxBytes) }
        return text
    }
}
