/// A plain HTTP request to ``WebSocketServer`` (one that is not a WebSocket upgrade).
public struct HTTPServerRequest: Sendable, Hashable {
    /// `GET`, `POST` or `OTHER`.
    public var method: String
    /// The path, without the query.
    public var path: String
    /// Whether the request had a query string.
    public var hasQuery: Bool

    /// A request with the given parts.
    public init(method: String, path: String, hasQuery: Bool) {
        self.method = method
        self.path = path
        self.hasQuery = hasQuery
    }
}

/// The answer to an ``HTTPServerRequest``: a status and a JSON body, sent with
/// `Content-Type: application/json; charset=utf-8` and `Cache-Control: no-store`.
public struct HTTPServerReply: Sendable, Hashable {
    /// HTTP status code.
    public var status: Int
    /// JSON body (cut to 32 KiB).
    public var body: [UInt8]

    /// A reply with the given status and body.
    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}
