public import ClawTalkProtocol

/// What the harness can observe, in order, from ``TestGateway/events`` or
/// ``TestGateway/waitForEvent(timeout:where:)``.
public enum TestGatewayEvent: Sendable, Equatable {
    /// A link was accepted and challenged.
    case opened(connection: Int)
    /// `hello-ok` was sent.
    case connected(connection: Int, role: String, deviceId: String)
    /// A `connect` was answered `ok:false` (`code`, `details.code`).
    case rejected(connection: Int, code: String, detailCode: String?)
    /// A device pairing request was created.
    case pairingRequested(requestId: String, deviceId: String, reason: String)
    /// A device pairing request was approved, rejected or superseded (`decision`).
    case pairingResolved(requestId: String, deviceId: String, decision: String)
    /// A capability-approval request was created for a node.
    case capabilityRequested(requestId: String, nodeId: String)
    /// A `node.invoke.result` arrived (also for unknown or late ids).
    case invokeResult(TestInvokeResult)
    /// A `node.event` was accepted (payload resolved from `payloadJSON` or `payload`;
    /// `node.presence.alive` triggers normalized).
    case nodeEvent(connection: Int, event: String, payload: WireJSON?)
    /// A `talk.event` was broadcast.
    case talkEvent(WireJSON)
    /// An operator method was executed (after role, feature, scope and params checks).
    case operatorCall(connection: Int, method: String, params: WireJSON?)
    /// A call was refused before execution (role allowlist, unknown method or missing scope).
    case callRefused(connection: Int, method: String, code: String)
    /// The connection closed (`code` nil for a reset).
    case closed(connection: Int, code: Int?, reason: String)
}

/// One `node.invoke.result` as received.
public struct TestInvokeResult: Sendable, Equatable {
    /// Invoke id.
    public var id: String
    /// `nodeId` as sent by the node.
    public var nodeId: String
    /// `ok`.
    public var ok: Bool
    /// `payloadJSON`, when a string.
    public var payloadJSON: String?
    /// `error.code`.
    public var errorCode: String?
    /// `error.message`.
    public var errorMessage: String?
    /// False for unknown or late ids (answered `{ok:true, ignored:true}`).
    public var matched: Bool
}

/// One frame that crossed a connection.
public struct RecordedFrame: Sendable {
    /// Direction as seen from the gateway.
    public enum Direction: Sendable, Equatable {
        /// Client → gateway.
        case received
        /// Gateway → client.
        case sent
    }

    /// Connection id.
    public var connection: Int
    /// Direction.
    public var direction: Direction
    /// The message text (UTF-8 decoded).
    public var text: String

    /// The parsed frame object, nil when the text is not JSON.
    public var json: WireJSON? { try? WireJSON(parsing: Array(text.utf8)) }
    /// `type` of the frame.
    public var type: String? { json?["type"]?.stringValue }
    /// `method` of a request.
    public var method: String? { json?["method"]?.stringValue }
    /// `event` of an event.
    public var event: String? { json?["event"]?.stringValue }
}
