import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport

extension TranscriptDelivery {
    /// What one send attempt achieved.
    enum SendOutcome: Sendable, Equatable {
        /// Handed to the gateway (or possibly: it timed out and must not be resent).
        case sent(DeliveryReceipt.Route)
        /// Not sent; keep it and try again later.
        case retry(String)
        /// Refused for good (logged; not retried).
        case dropped(String)
    }

    /// An operator request's result.
    private enum OperatorOutcome {
        case sent
        case fallback(String)
    }

    /// The route of `source` when both connections are up (talk.md §3.1).
    func primaryRoute(_ source: TranscriptSource) -> DeliveryReceipt.Route {
        switch source {
        case .pushToTalk, .talkMode: .chatSend
        case .voiceWake:
            switch configuration.wakeRoute {
            case .voiceTranscript: .voiceTranscript
            case .chatSend: .chatSend
            case .agent: .agent
            }
        }
    }

    /// The operator route that a send tries first (nil: `voice.transcript` only): the primary
    /// route when it is an operator one, or `chat.send` for a node route whose node is down
    /// (talk.md §3.1). `voice.transcript` follows when it fails, if the node is up.
    static func operatorRoute(primary: DeliveryReceipt.Route, nodeUp: Bool, operatorUp: Bool)
        -> DeliveryReceipt.Route?
    {
        guard operatorUp, primary != .voiceTranscript || !nodeUp else { return nil }
        return primary == .agent ? .agent : .chatSend
    }

    /// One attempt to deliver `entry` on the best connected route.
    func send(_ entry: QueuedTranscript, trackReply: Bool) async -> SendOutcome {
        let nodeUp = await node?.isSocketConnected ?? false
        let operatorUp = await operatorSession?.isConnected ?? false
        let primary = primaryRoute(entry.transcriptSource)
        if let route = Self.operatorRoute(primary: primary, nodeUp: nodeUp, operatorUp: operatorUp),
            let session = operatorSession
        {
            if await session.isAvailable(route.method) {
                switch await sendOperator(entry, route: route, session: session, trackReply: trackReply) {
                case .sent:
                    return .sent(route)
                case .fallback(let reason):
                    logger.warning(
                        "delivery.operator.fallback",
                        ["route": .string(route.rawValue), "id": .string(entry.id), "reason": .string(reason)])
                }
            }
        }
        guard nodeUp else { return .retry("no connected route") }
        return await sendVoiceTranscript(entry, trackReply: trackReply, incremental: operatorUp)
    }

    /// `chat.send` (talk.md §3.2) or `agent` (talk.md §3.4) with `entry.id` as idempotency key.
    private func sendOperator(
        _ entry: QueuedTranscript, route: DeliveryReceipt.Route, session: OperatorSession, trackReply: Bool
    ) async -> OperatorOutcome {
        let prompt =
            route == .agent && configuration.wakePromptHint
            ? PromptBuilder.agentMessage(entry.message, host: configuration.hostName) : entry.message
        let params: WireJSON
        do {
            if route == .agent {
                var object: WireObject = [
                    "message": .string(prompt), "sessionKey": .string(entry.sessionKey), "thinking": "low",
                    "deliver": true, "channel": "last",
                ]
                if let trigger = entry.trigger { object["voiceWakeTrigger"] = .string(trigger) }
                params = .object(object)
            } else {
                params = try WireJSON(
                    encoding: ChatSendParams(sessionKey: entry.sessionKey, message: prompt, idempotencyKey: entry.id))
            }
        } catch {
            return .fallback("\(error)")
        }
        let turn = await beginTurn(entry, prompt: prompt, trackReply: trackReply, adopt: false, incremental: true)
        do {
            let payload = try await session.call(
                route.method, params: params, timeout: configuration.requestTimeout)
            let result = ChatSendResult(json: payload)
            if let turn {
                await tracker?.bind(turn: turn, runId: result.runId, status: result.status)
                if result.runId == nil { await tracker?.adoptFirstRun(turn: turn) }
            }
            return .sent
        } catch GatewayError.timedOut {
            // The turn may be running: never resend; follow the first run on the session instead.
            logger.warning("delivery.timeout", ["route": .string(route.rawValue), "id": .string(entry.id)])
            if let turn { await tracker?.adoptFirstRun(turn: turn) }
            return .sent
        } catch {
            if let turn { await tracker?.cancel(turn: turn) }
            return .fallback("\(error)")
        }
    }

    /// `node.event voice.transcript {text, sessionKey, eventId}` (talk.md §3.3); the tracker is armed
    /// first to adopt the gateway's run (talk.md §4.2).
    private func sendVoiceTranscript(_ entry: QueuedTranscript, trackReply: Bool, incremental: Bool) async
        -> SendOutcome
    {
        guard let node else { return .retry("no node connection") }
        let params: NodeEventParams
        do {
            params = try .voiceTranscript(
                VoiceTranscriptEvent(text: entry.message, sessionKey: entry.sessionKey, eventId: entry.id))
            if !(await node.subscribedChatSessions.contains(entry.sessionKey)) {
                try await node.subscribeChat(sessionKey: entry.sessionKey)
            }
        } catch {
            logger.warning("delivery.subscribe.failed", ["error": .string("\(error)")])
            return .retry("\(error)")
        }
        let turn = await beginTurn(
            entry, prompt: entry.message, trackReply: trackReply, adopt: true, incremental: incremental)
        do {
            let result = try await node.sendEvent(params)
            if result.handled == false {
                if result.reason == "duplicate" {
                    logger.info("delivery.duplicate", ["id": .string(entry.id)])
                    return .sent(.voiceTranscript)
                }
                if let turn { await tracker?.cancel(turn: turn) }
                return .dropped("voice.transcript not handled: \(result.reason ?? "no reason given")")
            }
            return .sent(.voiceTranscript)
        } catch GatewayError.timedOut {
            logger.warning("delivery.timeout", ["route": "voiceTranscript", "id": .string(entry.id)])
            return .sent(.voiceTranscript)
        } catch GatewayError.response(let method, let error) {
            if let turn { await tracker?.cancel(turn: turn) }
            return .dropped("\(method) failed: \(error)")
        } catch {
            if let turn { await tracker?.cancel(turn: turn) }
            return .retry("\(error)")
        }
    }

    private func beginTurn(
        _ entry: QueuedTranscript, prompt: String, trackReply: Bool, adopt: Bool, incremental: Bool
    ) async -> Int? {
        guard trackReply, let tracker else { return nil }
        return await tracker.begin(
            sessionKey: entry.sessionKey, prompt: prompt, sentAtMs: now(), adoptFirstRun: adopt,
            incremental: incremental)
    }

    /// After a connection's `hello-ok`, waits for each session whose socket is up to have
    /// handled its own `hello-ok` (its `connected`; at most a second), so that the flush sees
    /// every route there is.
    func settleSessions() async {
        if let node, await node.isSocketConnected {
            await Self.ready(await node.subscribe(events: []))
        }
        if let operatorSession, await operatorSession.isSocketConnected {
            await Self.ready(await operatorSession.subscribe(events: []))
        }
    }

    /// Returns once `events` says `connected` (at once for a ready session), the stream ends,
    /// or a second has passed.
    private static func ready(_ events: AsyncStream<ConnectionEvent>) async {
        _ = try? await withTimeout(.seconds(1)) {
            for await event in events {
                if case .connected = event { return }
            }
        }
    }
}

extension DeliveryReceipt.Route {
    /// The operator method of an operator route.
    var method: String {
        switch self {
        case .chatSend: OperatorMethod.chatSend.rawValue
        case .agent: OperatorMethod.agent.rawValue
        case .voiceTranscript: NodeEventName.voiceTranscript.rawValue
        }
    }
}
