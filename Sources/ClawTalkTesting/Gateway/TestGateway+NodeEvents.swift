import ClawTalkProtocol

/// `node.event` of protocol.md §10.5 (checklist 31; talk.md §3.3, §4.2): closed
/// params, `{ok, event, handled, reason?}`, transcripts starting chat runs, chat
/// subscriptions and presence-trigger normalization.
extension TestGateway {
    /// Presence triggers the gateway knows; anything else becomes `background`.
    static let presenceTriggers: Set<String> = [
        "background", "silent_push", "bg_app_refresh", "significant_location", "manual", "connect",
    ]

    func handleNodeEvent(_ id: Int, _ request: RequestFrame, session: TestGatewaySession) {
        let params = request.params ?? .null
        let schema = WireSchema.closed(
            [
                "event": .nonEmptyString, "payload": .any,
                "payloadJSON": configuration.strictNullPayloadJSON ? .string() : .nullable(.string()),
            ], required: ["event"])
        if let error = schema.firstError(params) {
            respondError(id, request.id, Self.invalidParams(request.method, error))
            return
        }
        let event = params["event"]?.stringValue ?? ""
        var payload = params["payload"].nonNull
        if let text = params["payloadJSON"]?.stringValue {
            guard let parsed = try? WireJSON(parsing: text) else {
                answerNodeEvent(id, request.id, event, handled: false, reason: "invalid payloadJSON")
                return
            }
            payload = parsed
        }
        let reason: String?
        switch event {
        case NodeEventName.voiceTranscript.rawValue:
            reason = handleVoiceTranscript(payload, nodeId: session.nodeId)
        case NodeEventName.chatSubscribe.rawValue, NodeEventName.chatUnsubscribe.rawValue:
            if let key = payload?["sessionKey"]?.nonEmptyStringValue {
                if event == NodeEventName.chatSubscribe.rawValue {
                    connections[id]?.session?.chatSubscriptions.insert(key)
                } else {
                    connections[id]?.session?.chatSubscriptions.remove(key)
                }
                reason = nil
            } else {
                reason = "missing sessionKey"
            }
        case NodeEventName.presenceAlive.rawValue:
            let raw = payload?["trigger"]?.stringValue ?? ""
            let trigger = Self.presenceTriggers.contains(raw) ? raw : "background"
            var object = payload?.objectValue ?? WireObject()
            object["trigger"] = .string(trigger)
            payload = .object(object)
            connections[id]?.session?.lastPresenceTrigger = trigger
            reason = nil
        case "agent.request":
            reason = nil
        default:
            reason = "unsupported event"
        }
        answerNodeEvent(id, request.id, event, handled: reason == nil, reason: reason)
        if reason == nil { emit(.nodeEvent(connection: id, event: event, payload: payload)) }
    }

    func answerNodeEvent(_ id: Int, _ requestId: String, _ event: String, handled: Bool, reason: String?) {
        var result: WireObject = ["ok": true, "event": .string(event), "handled": .bool(handled)]
        if let reason { result["reason"] = .string(reason) }
        respond(id, requestId, .object(result))
    }

    /// Validates and dedupes a transcript, then starts the next scripted chat run with a
    /// gateway-assigned run id. Returns why it was not handled, or nil.
    func handleVoiceTranscript(_ payload: WireJSON?, nodeId: String) -> String? {
        guard let raw = payload?["text"]?.stringValue else { return "missing text" }
        let text = DeviceProofVerifier.jsTrim(raw)
        guard !text.isEmpty else { return "empty text" }
        guard text.utf16.count <= GatewayLimits.maxTranscriptUTF16 else { return "text too long" }
        let sessionKey = payload?["sessionKey"]?.nonEmptyStringValue ?? "main"
        let dedupeKey = payload?["eventId"]?.nonEmptyStringValue.map { "id:\($0)" } ?? "text:\(sessionKey)|\(text)"
        guard seenTranscriptEventIds.insert(dedupeKey).inserted else { return "duplicate" }
        startChatRun(sessionKey: sessionKey, runId: "voice-\(WireID.make())", userText: text)
        return nil
    }
}
