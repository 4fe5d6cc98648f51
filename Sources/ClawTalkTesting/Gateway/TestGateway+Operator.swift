public import ClawTalkProtocol
import ClawTalkSupport
import Foundation

/// Operator methods of protocol.md §14 and talk.md §11 (checklist 40–43): feature
/// list, scopes per method, closed params, then table-driven scripted answers.
extension TestGateway {
    /// Closed params schema per operator method (absent params read as `{}`).
    static let operatorParams: [String: WireSchema] = [
        "chat.send": .closed(
            [
                "sessionKey": .nonEmptyString, "message": .string(), "thinking": .string(), "deliver": .boolean,
                "attachments": .array(.any), "timeoutMs": .integer(minimum: 0), "idempotencyKey": .nonEmptyString,
            ], required: ["sessionKey", "message", "idempotencyKey"]),
        "chat.history": .closed(
            ["sessionKey": .nonEmptyString, "limit": .integer(minimum: 1)], required: ["sessionKey"]),
        "agent": .closed(
            [
                "message": .string(), "sessionKey": .string(), "thinking": .string(), "deliver": .boolean,
                "channel": .string(), "to": .string(), "voiceWakeTrigger": .string(), "idempotencyKey": .string(),
                "timeout": .integer(minimum: 0),
            ], required: ["message"]),
        "talk.config": .closed(["includeSecrets": .boolean]),
        "talk.speak": .closed(
            [
                "text": .nonEmptyString, "voiceId": .string(), "modelId": .string(), "outputFormat": .string(),
                "speed": .number, "rateWpm": .integer(), "stability": .number, "similarity": .number, "style": .number,
                "speakerBoost": .boolean, "seed": .integer(), "normalize": .string(), "language": .string(),
                "latencyTier": .integer(),
            ], required: ["text"]),
        "talk.mode": .closed(["enabled": .boolean, "phase": .string()], required: ["enabled"]),
        "tts.speak": .closed(["text": .nonEmptyString], required: ["text"]),
        "voicewake.set": .closed(["triggers": .array(.string())], required: ["triggers"]),
        "talk.session.create": .closed(
            [
                "mode": .string(oneOf: ["realtime", "stt-tts", "transcription"]),
                "transport": .string(oneOf: ["webrtc", "provider-websocket", "gateway-relay", "managed-room"]),
                "brain": .string(oneOf: ["agent-consult", "direct-tools", "none"]), "sessionKey": .string(),
                "language": .string(minLength: 2), "ttlMs": .integer(minimum: 1_000), "provider": .string(),
                "model": .string(), "voice": .string(), "vadThreshold": .number,
                "silenceDurationMs": .integer(minimum: 0), "prefixPaddingMs": .integer(minimum: 0),
            ]),
        "talk.session.appendAudio": .closed(
            ["sessionId": .nonEmptyString, "audioBase64": .string(), "timestamp": .integer(minimum: 0)],
            required: ["sessionId", "audioBase64"]),
        "talk.session.close": .closed(["sessionId": .nonEmptyString], required: ["sessionId"]),
        "talk.session.cancelOutput": .closed(
            ["sessionId": .nonEmptyString, "turnId": .nonEmptyString, "reason": .string()],
            required: ["sessionId", "turnId"]),
        "talk.session.acknowledgeMark": .closed(
            ["sessionId": .nonEmptyString, "name": .nonEmptyString], required: ["sessionId", "name"]),
        "talk.realtime.relayMark": .closed(
            ["sessionId": .nonEmptyString, "name": .nonEmptyString], required: ["sessionId", "name"]),
        "talk.session.submitToolResult": .closed(
            ["sessionId": .nonEmptyString, "callId": .nonEmptyString, "result": .any, "error": .string()],
            required: ["sessionId", "callId"]),
    ]

    /// The scope a call needs (checklist 40, as current upstream has it, protocol.md §14):
    /// `talk.session.*`, `talk.client.*`, `talk.speak` and `talk.mode` need `operator.talk`,
    /// which `operator.write` satisfies (``scopeSatisfied(_:by:)``); `talk.mode` needs
    /// `operator.admin` only in the ``TestGatewayConfiguration/talkModeRequiresAdmin`` mode.
    func requiredScope(_ method: String, params: WireJSON?) -> String {
        switch method {
        case "talk.config":
            params?["includeSecrets"]?.boolValue == true ? "operator.talk.secrets" : "operator.read"
        case "voicewake.get", "voicewake.routing.get", "chat.history", "tts.status", "tts.providers", "talk.catalog":
            "operator.read"
        case "talk.mode":
            configuration.talkModeRequiresAdmin ? "operator.admin" : "operator.talk"
        case "talk.speak":
            "operator.talk"
        case _
        where method.hasPrefix("talk.session.") || method.hasPrefix("talk.client.")
            || method.hasPrefix("talk.realtime."):
            "operator.talk"
        default:
            "operator.write"
        }
    }

    func handleOperatorCall(_ id: Int, _ request: RequestFrame, session: TestGatewaySession) {
        let method = request.method
        guard configuration.methods.contains(method) else {
            respondError(id, request.id, ErrorShape(code: "INVALID_REQUEST", message: "unknown method: \(method)"))
            emit(.callRefused(connection: id, method: method, code: "INVALID_REQUEST"))
            return
        }
        let scope = requiredScope(method, params: request.params)
        guard Self.scopeSatisfied(scope, by: Set(session.scopes)) else {
            let details: WireJSON = [
                "code": "MISSING_SCOPE", "missingScope": .string(scope), "requiredScopes": [.string(scope)],
            ]
            respondError(
                id, request.id, ErrorShape(code: "FORBIDDEN", message: "missing scope: \(scope)", details: details))
            emit(.callRefused(connection: id, method: method, code: "FORBIDDEN"))
            return
        }
        let params = request.params ?? [:]
        let schema = Self.operatorParams[method] ?? .closed([:])
        if let error = schema.firstError(params) {
            respondError(id, request.id, Self.invalidParams(method, error))
            return
        }
        if configuration.recordsAudio || method != "talk.session.appendAudio" {
            emit(.operatorCall(connection: id, method: method, params: request.params))
        }
        if method.hasPrefix("talk.session.") || method == "talk.realtime.relayMark",
            queuedReplies[method]?.isEmpty ?? true
        {
            if isRealtimeCall(method, params: params) {
                handleRealtimeCall(id, request.id, method: method, params: params)
                return
            }
            handleRelayCall(id, request.id, method: method, params: params)
            return
        }
        if var queue = queuedReplies[method], !queue.isEmpty {
            let reply = queue.removeFirst()
            queuedReplies[method] = queue
            deliver(reply, to: id, requestId: request.id)
            return
        }
        var broadcastAfterReply: (() -> Void)?
        let reply = defaultReply(method, params: params) { broadcastAfterReply = $0 }
        deliver(reply, to: id, requestId: request.id)
        broadcastAfterReply?()
    }

    /// The scripted default answer; state changes happen here, their broadcasts are handed to
    /// `after` so they follow the response.
    func defaultReply(_ method: String, params: WireJSON, after: (@escaping () -> Void) -> Void) -> ScriptedReply {
        switch method {
        case "chat.send", "agent":
            let runId = WireID.make()
            let sessionKey = params["sessionKey"]?.nonEmptyStringValue ?? "main"
            startChatRun(sessionKey: sessionKey, runId: runId, userText: params["message"]?.stringValue ?? "")
            return .ok(["runId": .string(runId), "status": "started"])
        case "chat.history":
            let key = params["sessionKey"]?.stringValue ?? "main"
            let messages = chatHistory[key] ?? []
            let limit = params["limit"]?.intValue ?? messages.count
            return .ok(["sessionKey": .string(key), "messages": .array(Array(messages.suffix(limit)))])
        case "talk.config":
            return .ok(["config": talkConfigPayload(includeSecrets: params["includeSecrets"]?.boolValue == true)])
        case "talk.speak":
            return script.talkSpeak
        case "tts.speak":
            let text = params["text"]?.stringValue ?? ""
            guard text.count <= script.ttsMaxTextLength else {
                return .error(ErrorShape(code: "INVALID_REQUEST", message: "text too long"))
            }
            return script.ttsSpeak
        case "talk.mode":
            let phase = params["phase"]?.stringValue
            let enabled = params["enabled"]?.boolValue ?? false
            talkMode = (enabled, phase)
            after { self.setTalkMode(enabled: enabled, phase: phase) }
            return .ok(["enabled": .bool(talkMode.enabled), "phase": phase.map(WireJSON.string) ?? .null])
        case "voicewake.get":
            return .ok(["triggers": .array(voiceWakeTriggers.map(WireJSON.string))])
        case "voicewake.set":
            voiceWakeTriggers = VoiceWakeTriggers.normalize(params["triggers"]?.stringArrayValue ?? [])
            after { self.setVoiceWakeTriggers(self.voiceWakeTriggers) }
            return .ok(["triggers": .array(voiceWakeTriggers.map(WireJSON.string))])
        case "voicewake.routing.get":
            return .ok(["config": voiceWakeRouting])
        case "tts.status":
            return .ok(["enabled": true, "provider": "test"])
        case "tts.providers":
            return .ok(["providers": [["id": "test", "configured": true]]])
        case "talk.catalog":
            let ready = script.transcriptionReady
            let realtime = script.realtime.ready
            return .ok([
                "modes": realtime ? ["stt-tts", "transcription", "realtime"] : ["stt-tts", "transcription"],
                "transports": ["gateway-relay"], "brains": realtime ? ["none", "agent-consult"] : ["none"],
                "realtime": [
                    "ready": .bool(realtime), "transports": realtime ? ["gateway-relay"] : [],
                    "providers": realtime ? [["id": "test", "configured": true]] : [],
                ],
                "transcription": [
                    "ready": .bool(ready), "activeProvider": ready ? "test" : .null,
                    "providers": ready ? [["id": "test", "configured": true]] : [],
                ],
            ])
        default:
            return .unavailable("UNAVAILABLE: \(method) is not emulated by the test gateway")
        }
    }

    /// `talk.config` with the API key redacted unless secrets were requested.
    func talkConfigPayload(includeSecrets: Bool) -> WireJSON {
        var config = script.talkConfig.objectValue ?? WireObject()
        var talk = config["talk"]?.objectValue ?? WireObject()
        var providers = talk["providers"]?.objectValue ?? WireObject()
        let secret = includeSecrets ? script.talkAPIKey : TalkConfig.redactedMarker
        for key in providers.keys {
            var provider = providers[key]?.objectValue ?? WireObject()
            provider["apiKey"] = .string(secret)
            providers[key] = .object(provider)
        }
        talk["providers"] = .object(providers)
        config["talk"] = .object(talk)
        return .object(config)
    }

    func deliver(_ reply: ScriptedReply, to id: Int, requestId: String) {
        switch reply {
        case .ok(let payload):
            respond(id, requestId, payload)
        case .error(let error):
            respondError(id, requestId, error)
        case .clip(let clip):
            sendClip(clip, to: id, requestId: requestId)
        case .noReply:
            break
        case .delayed(let ms, let inner):
            children.spawn {
                try? await Task.sleep(for: .milliseconds(ms))
                await self.deliver(inner, to: id, requestId: requestId)
            }
        }
    }

    /// A clip response; the base64 is spliced into the encoded frame so multi-megabyte clips
    /// do not go through the JSON writer byte by byte.
    func sendClip(_ clip: TestClip, to id: Int, requestId: String) {
        let marker = "@@CLIP-\(requestId)@@"
        var payload: WireObject = ["audioBase64": .string(marker), "provider": .string(clip.provider)]
        if let value = clip.outputFormat { payload["outputFormat"] = .string(value) }
        if let value = clip.voiceCompatible { payload["voiceCompatible"] = .bool(value) }
        if let value = clip.mimeType { payload["mimeType"] = .string(value) }
        if let value = clip.fileExtension { payload["fileExtension"] = .string(value) }
        let text = ResponseFrame(id: requestId, ok: true, payload: .object(payload)).encodedText()
        let base64 = Data(clip.audio).base64EncodedString()
        guard let range = text.range(of: marker) else { return }
        sendText(id, text.replacingCharacters(in: range, with: base64))
    }

    // MARK: Harness API

    /// Queues the answer for the next call of `method` (FIFO); defaults resume when empty.
    public func enqueueReply(_ reply: ScriptedReply, for method: String) {
        queuedReplies[method, default: []].append(reply)
    }

    /// Queues the steps of the next chat run (from `chat.send`, `agent` or `voice.transcript`).
    public func enqueueChatRun(_ steps: [ChatScriptStep]) {
        queuedChatRuns.append(steps)
    }

    /// The session's history as `chat.history` returns it.
    public func history(sessionKey: String) -> [WireJSON] {
        chatHistory[sessionKey] ?? []
    }
}
