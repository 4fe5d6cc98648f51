public import ClawTalkProtocol
import ClawTalkSupport

extension GatewayConnection {
    /// Sends a request on the live socket and waits for its response payload (`.null` when the
    /// response has none).
    ///
    /// Fails at once when not connected; fails with ``GatewayError/closed(reason:)`` when the
    /// socket ends first (never replayed on a new socket); refuses frames larger than
    /// `policy.maxPayload`.
    /// - Parameters:
    ///   - method: the method name.
    ///   - params: params; omitted when nil.
    ///   - timeout: limit (default: the configured request timeout, 15 s).
    ///   - epoch: send only if the live socket is still this one (invoke results, protocol.md §10.2.7).
    public func request(
        method: String, params: WireJSON? = nil, timeout: Duration? = nil, epoch expected: Int? = nil
    ) async throws -> WireJSON {
        try await startRequest(method: method, params: params, timeout: timeout, epoch: expected).response()
    }

    /// Sends a request now and returns without waiting for the answer: requests started one
    /// after another from one task reach the socket in that order, while their answers can be
    /// awaited concurrently (``PendingResponse/response()``). Same checks and errors as
    /// ``request(method:params:timeout:epoch:)``.
    public func startRequest(
        method: String, params: WireJSON? = nil, timeout: Duration? = nil, epoch expected: Int? = nil
    ) throws -> PendingResponse {
        guard method != ConnectParams.method else {
            throw GatewayError.transport("connect is sent only by the handshake")
        }
        guard let link else {
            if case .stopped = machine.state { throw GatewayError.stopped }
            throw GatewayError.notConnected
        }
        if let expected, expected != link.epoch {
            throw GatewayError.staleEpoch(expected: expected, current: link.epoch)
        }
        let frame = RequestFrame(method: method, params: params)
        let text: String
        do {
            text = try frame.encodedText(maxBytes: link.hello.policy.maxPayload)
        } catch {
            if case .frameTooLarge(let bytes, let limit) = error {
                throw GatewayError.payloadTooLarge(bytes: bytes, limit: limit)
            }
            throw GatewayError.transport(error.description)
        }
        let promise = ResponsePromise(method: method)
        pending[frame.id] = promise
        do {
            try link.socket.send(text: text)
        } catch {
            pending[frame.id] = nil
            throw GatewayError.transport("send failed: \(error)")
        }
        return PendingResponse(
            connection: self, id: frame.id, promise: promise, limit: timeout ?? configuration.timeouts.request)
    }

    /// Waits for a started request's answer within `limit`; forgets it on timeout or error.
    func awaitResponse(id: String, promise: ResponsePromise, limit: Duration) async throws -> WireJSON {
        do {
            return try await withTimeout(limit, clock: clock) { try await promise.value() }
        } catch is TimeoutError {
            pending[id] = nil
            throw GatewayError.timedOut(method: promise.method)
        } catch {
            pending[id] = nil
            throw error
        }
    }
}
