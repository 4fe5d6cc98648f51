public import ClawTalkProtocol

/// A request already on the socket (``GatewayConnection/startRequest(method:params:timeout:epoch:)``)
/// whose answer has not been awaited yet.
public struct PendingResponse: Sendable {
    let connection: GatewayConnection
    let id: String
    let promise: ResponsePromise
    let limit: Duration

    /// The request's method.
    public var method: String { promise.method }

    /// Waits for the response payload (`.null` when it has none); the timeout counts from here.
    /// - Throws: as ``GatewayConnection/request(method:params:timeout:epoch:)``.
    public func response() async throws -> WireJSON {
        try await connection.awaitResponse(id: id, promise: promise, limit: limit)
    }
}
