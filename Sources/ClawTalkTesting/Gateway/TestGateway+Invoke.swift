public import ClawTalkProtocol
import ClawTalkSupport
import Foundation

/// `paramsJSON` of a `node.invoke.request`.
public enum TestInvokeParams: Sendable, Equatable {
    /// `paramsJSON:null` (what the gateway sends for no params).
    case null
    /// No `paramsJSON` key.
    case absent
    /// `paramsJSON` with this exact text (e.g. `"{}"` or an object with unknown keys).
    case json(String)
}

/// What the invoker (operator, `/ptt`) gets back.
public enum TestInvokeOutcome: Sendable, Equatable {
    /// `ok:true` with the node's `payloadJSON` (or `payload`).
    case ok(payloadJSON: String?, payload: WireJSON?)
    /// `ok:false` with the node's error.
    case failed(code: String?, message: String?)
    /// No result within `timeoutMs`: `{ok:false, error:{code:"TIMEOUT"}}`.
    case timeout
    /// Not dispatched (command policy); nothing was sent to the node.
    case refused(code: String, message: String)
    /// No established node connection with that id.
    case notConnected
    /// The node's socket closed before the result.
    case disconnected
}

/// An invoke waiting for its result.
struct PendingInvoke {
    let connection: Int
    let nodeId: String
    let command: String
    let continuation: CheckedContinuation<TestInvokeOutcome, Never>
}

/// `node.invoke.request` / `node.invoke.result` of protocol.md §10.2–§10.3 and the
/// `talk.event` derived from PTT results (protocol.md §13; checklist 26–29, 32).
extension TestGateway {
    /// Sends `node.invoke.request {id, nodeId, command, paramsJSON, timeoutMs, idempotencyKey}`
    /// (no `seq`) to the node and waits for its result, or reports ``TestInvokeOutcome/timeout``
    /// after `timeoutMs` (0 or nil: 30000). The command policy applies unless `bypassPolicy`.
    public func invoke(
        nodeId: String, command: String, params: TestInvokeParams = .null, timeoutMs: Int? = 15_000,
        idempotencyKey: String? = WireID.make(), bypassPolicy: Bool = false
    ) async -> TestInvokeOutcome {
        guard
            let connection = connections.values.filter({
                $0.phase == .established && $0.session?.isNode == true && $0.session?.nodeId == nodeId
            }).max(by: { $0.id < $1.id }), let session = connection.session
        else { return .notConnected }
        if !bypassPolicy, let refusal = dispatchRefusal(session, command: command) {
            return .refused(code: "INVALID_REQUEST", message: "node command not allowed: \(refusal) (\(command))")
        }
        let invokeId = WireID.make()
        var payload: WireObject = ["id": .string(invokeId), "nodeId": .string(nodeId), "command": .string(command)]
        switch params {
        case .null: payload["paramsJSON"] = .null
        case .absent: break
        case .json(let text): payload["paramsJSON"] = .string(text)
        }
        if let timeoutMs { payload["timeoutMs"] = .integer(Int64(timeoutMs)) }
        if let idempotencyKey { payload["idempotencyKey"] = .string(idempotencyKey) }
        let deadline = (timeoutMs ?? 0) > 0 ? timeoutMs ?? 0 : GatewayLimits.defaultInvokeTimeoutMs
        return await withCheckedContinuation { continuation in
            pendingInvokes[invokeId] = PendingInvoke(
                connection: connection.id, nodeId: nodeId, command: command, continuation: continuation)
            sendEvent(connection.id, "node.invoke.request", .object(payload))
            children.spawn {
                try? await Task.sleep(for: .milliseconds(deadline))
                await self.finishInvoke(invokeId, .timeout)
            }
        }
    }

    /// Sends `node.invoke.cancel {invokeId, nodeId}` to the node.
    public func cancelInvoke(invokeId: String, nodeId: String) {
        for connection in connections.values where connection.session?.nodeId == nodeId {
            sendEvent(connection.id, "node.invoke.cancel", ["invokeId": .string(invokeId), "nodeId": .string(nodeId)])
        }
    }

    /// Ids of invokes that are still waiting for a result.
    public var pendingInvokeIds: [String] { Array(pendingInvokes.keys) }

    func finishInvoke(_ invokeId: String, _ outcome: TestInvokeOutcome) {
        guard let pending = pendingInvokes.removeValue(forKey: invokeId) else { return }
        finishedInvokeIds.insert(invokeId)
        pending.continuation.resume(returning: outcome)
    }

    func failInvokes(onConnection id: Int) {
        for (invokeId, pending) in pendingInvokes where pending.connection == id {
            finishInvoke(invokeId, .disconnected)
        }
    }

    /// `node.invoke.result` params (closed at both levels; no `error.retryable`).
    func invokeResultSchema() -> WireSchema {
        let strict = configuration.strictNullPayloadJSON
        let error = WireSchema.closed(["code": .string(), "message": .string()])
        return .closed(
            [
                "id": .nonEmptyString, "nodeId": .nonEmptyString, "ok": .boolean, "payload": .any,
                "payloadJSON": strict ? .string() : .nullable(.string()), "error": strict ? error : .nullable(error),
            ], required: ["id", "nodeId", "ok"])
    }

    func handleInvokeResult(_ id: Int, _ request: RequestFrame, session: TestGatewaySession) {
        let params = request.params ?? .null
        if let error = invokeResultSchema().firstError(params) {
            respondError(id, request.id, Self.invalidParams(request.method, error))
            return
        }
        let invokeId = params["id"]?.stringValue ?? ""
        let nodeId = params["nodeId"]?.stringValue ?? ""
        guard nodeId == session.nodeId else {
            respondError(id, request.id, ErrorShape(code: "INVALID_REQUEST", message: "nodeId mismatch"))
            return
        }
        let ok = params["ok"]?.boolValue ?? false
        let payloadJSON = params["payloadJSON"]?.stringValue
        var result = TestInvokeResult(
            id: invokeId, nodeId: nodeId, ok: ok, payloadJSON: payloadJSON,
            errorCode: params["error"]?["code"]?.stringValue, errorMessage: params["error"]?["message"]?.stringValue,
            matched: false)
        guard let pending = pendingInvokes[invokeId], pending.nodeId == nodeId else {
            respond(id, request.id, ["ok": true, "ignored": true])
            emit(.invokeResult(result))
            return
        }
        result.matched = true
        respond(id, request.id, ["ok": true])
        emit(.invokeResult(result))
        let payload = params["payload"].nonNull
        finishInvoke(
            invokeId,
            ok
                ? .ok(payloadJSON: payloadJSON, payload: payload)
                : .failed(code: result.errorCode, message: result.errorMessage))
        if ok, let command = TalkCommand(rawValue: pending.command) {
            let body = payloadJSON.flatMap { try? WireJSON(parsing: $0) } ?? payload
            broadcastTalkEvent(nodeId: nodeId, command: command, result: body)
        }
    }

    /// `talk.event` for a PTT result (`sessionId = node:<nodeId>:talk:<captureId>`); nothing when
    /// the result has no `captureId`.
    func broadcastTalkEvent(nodeId: String, command: TalkCommand, result: WireJSON?) {
        guard let captureId = result?["captureId"]?.nonEmptyStringValue else { return }
        let type =
            switch command {
            case .start: "capture.started"
            case .stop: "capture.stopped"
            case .cancel: "capture.cancelled"
            case .once: "capture.once"
            }
        var inner: WireObject = ["nodeId": .string(nodeId), "command": .string(command.rawValue)]
        if let status = result?["status"]?.stringValue { inner["status"] = .string(status) }
        if let transcript = result?["transcript"]?.stringValue { inner["transcript"] = .string(transcript) }
        let event: WireJSON = [
            "sessionId": .string("node:\(nodeId):talk:\(captureId)"), "type": .string(type), "mode": "stt-tts",
            "transport": "managed-room", "brain": "agent-consult", "final": .bool(command != .start),
            "payload": .object(inner), "ts": .integer(nowMs),
        ]
        broadcast("talk.event", event, to: \.isOperator)
        emit(.talkEvent(event))
    }

    /// `INVALID_REQUEST` "invalid <method> params: <first schema error>".
    static func invalidParams(_ method: String, _ error: String) -> ErrorShape {
        ErrorShape(code: "INVALID_REQUEST", message: "invalid \(method) params: \(error)")
    }
}
