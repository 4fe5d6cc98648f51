import ClawTalkProtocol
import Foundation

/// Requests on an established socket: size limit, frame validation, a second `connect`
/// (checklist 24), the node-role allowlist (checklist 25) and role separation.
extension TestGateway {
    func handleEstablishedMessage(_ id: Int, data: Data) {
        if data.count > configuration.policy.maxPayload {
            closeConnection(id, code: 1009, reason: "payload too large")
            return
        }
        guard let session = connections[id]?.session else { return }
        guard let request = Self.requestFrame(data) else {
            if let json = try? WireJSON(parsing: data), json["type"]?.stringValue == "req",
                let requestId = json["id"]?.nonEmptyStringValue
            {
                respondError(id, requestId, ErrorShape(code: "INVALID_REQUEST", message: "invalid request frame"))
            }
            return
        }
        if request.method == ConnectParams.method {
            respondError(id, request.id, ErrorShape(code: "INVALID_REQUEST", message: "connect already completed"))
            emit(.callRefused(connection: id, method: request.method, code: "INVALID_REQUEST"))
            return
        }
        let isNodeMethod = TestGatewayConfiguration.nodeMethods.contains(request.method)
        guard session.isNode == isNodeMethod else {
            respondError(
                id, request.id, ErrorShape(code: "INVALID_REQUEST", message: "unauthorized role: \(session.role)"))
            emit(.callRefused(connection: id, method: request.method, code: "INVALID_REQUEST"))
            return
        }
        if session.isNode {
            handleNodeCall(id, request, session: session)
        } else {
            handleOperatorCall(id, request, session: session)
        }
    }

    func handleNodeCall(_ id: Int, _ request: RequestFrame, session: TestGatewaySession) {
        switch request.method {
        case NodeMethod.invokeResult.rawValue:
            handleInvokeResult(id, request, session: session)
        case NodeMethod.event.rawValue:
            handleNodeEvent(id, request, session: session)
        case "skills.bins":
            respond(id, request.id, ["bins": []])
        default:
            respond(id, request.id, ["ok": true])
        }
    }
}
