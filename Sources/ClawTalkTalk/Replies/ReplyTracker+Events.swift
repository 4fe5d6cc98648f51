import ClawTalkGateway
public import ClawTalkProtocol
import ClawTalkSupport

extension ReplyTracker {
    /// Takes a gateway event: `chat` (from either connection) or `agent` (operator only).
    public func receive(_ frame: EventFrame, viaNode: Bool) {
        switch frame.name {
        case .chat:
            do {
                receive(.chat(try ChatEvent(json: frame.payload), viaNode: viaNode))
            } catch {
                logger.throttled(key: "reply.chat.invalid", every: .seconds(30))
                    .warning("reply.chat.invalid", ["error": .string("\(error)")])
            }
        case .agent where !viaNode:
            do {
                receive(.agent(try AgentEvent(json: frame.payload)))
            } catch {
                logger.throttled(key: "reply.agent.invalid", every: .seconds(30))
                    .warning("reply.agent.invalid", ["error": .string("\(error)")])
            }
        default:
            return
        }
    }

    /// Matches an event to the current turn: bound run id, adoption, or the backlog.
    func receive(_ event: BacklogEvent) {
        guard var current = turn else { return }
        if current.runId == nil {
            guard current.adopting, case .chat(let chat, let viaNode) = event,
                viaNode || SessionKeys.match(chat.sessionKey, current.sessionKey)
            else {
                keep(event)
                return
            }
            current.runId = chat.runId
            turn = current
            logger.info(
                "reply.run.adopted",
                ["turn": .int(current.id), "runId": .string(chat.runId), "sessionKey": .string(chat.sessionKey)])
            handle(event)
            replayBacklog()
            return
        }
        guard event.runId == current.runId else { return }
        handle(event)
    }

    /// Replays kept events of the now known run, in arrival order.
    func replayBacklog() {
        guard let runId = turn?.runId else { return }
        let kept = backlog
        backlog = []
        for event in kept where event.runId == runId { handle(event) }
    }

    private func keep(_ event: BacklogEvent) {
        backlog.append(event)
        if backlog.count > Self.backlogLimit { backlog.removeFirst(backlog.count - Self.backlogLimit) }
    }

    /// An event of the followed run.
    private func handle(_ event: BacklogEvent) {
        guard var current = turn else { return }
        switch event {
        case .chat(let chat, _):
            let key = chat.seq.map { "chat:\(chat.state):\($0)" } ?? "chat:\(chat.state):\(chat.text)"
            guard current.seen.insert(key).inserted else { return }
            current.sawEvent = true
            switch chat.chatState {
            case .delta?:
                current.chatText.absorb(chat.text)
                turn = current
                if current.lead == nil || current.lead == .chat { advance(current.chatText.text, lead: .chat) }
            case .final?:
                turn = current
                finish(current.id, finalText: chat.text.isEmpty ? current.heldText : chat.text)
            case .aborted?:
                turn = current
                fail(current.id, .aborted)
            case .error?:
                turn = current
                fail(current.id, .error(chat.errorMessage))
            case nil:
                turn = current
                logger.debug("reply.chat.state.unknown", ["state": .string(chat.state)])
            }
        case .agent(let agent):
            let key =
                agent.seq.map { "agent:\(agent.stream):\($0)" } ?? "agent:\(agent.stream):\(agent.data.text ?? "")"
            guard current.seen.insert(key).inserted else { return }
            current.sawEvent = true
            if let text = agent.assistantText {
                current.agentText.absorb(text)
                turn = current
                if current.lead == nil || current.lead == .agent { advance(current.agentText.text, lead: .agent) }
            } else {
                turn = current
            }
            if agent.isLifecycleEnd, !current.heldText.isEmpty {
                finish(current.id, finalText: current.heldText)
            }
        }
    }

    /// Feeds the lead stream's text to the segmenter and reports new segments.
    private func advance(_ text: String, lead: ReplyTurn.Lead) {
        guard var current = turn, current.incremental, !text.isEmpty else { return }
        current.lead = lead
        let segments = current.buffer.update(text)
        turn = current
        for segment in segments {
            publish(.segment(turn: current.id, text: segment, directive: current.buffer.directive))
        }
    }

    /// `chat.history` fallback (§4.1): every ``Timing/historyInterval`` for up to
    /// ``Timing/historyWindow`` while the turn has seen no event (`force`: regardless).
    func pollHistory(_ id: Int, force: Bool) async {
        var waited = Duration.zero
        while true {
            guard let current = turn, current.id == id, force || !current.sawEvent else { return }
            guard let session = operatorSession else {
                logger.debug("reply.history.unavailable", ["turn": .int(id), "reason": "no operator connection"])
                return
            }
            logger.debug("reply.history.poll", ["turn": .int(id)])
            do {
                let params: WireJSON = [
                    "sessionKey": .string(current.sessionKey), "limit": .integer(Int64(timing.historyLimit)),
                ]
                let payload = try await session.call(
                    OperatorMethod.chatHistory.rawValue, params: params, timeout: .seconds(5))
                if let text = ChatHistoryReply.reply(in: payload, sentAtMs: current.sentAtMs, prompt: current.prompt) {
                    guard turn?.id == id else { return }
                    logger.info("reply.history.found", ["turn": .int(id)])
                    finish(id, finalText: text)
                    return
                }
            } catch GatewayError.methodUnavailable(let method) {
                logger.warning("reply.history.unavailable", ["turn": .int(id), "reason": .string(method)])
                return
            } catch {
                logger.debug("reply.history.failed", ["turn": .int(id), "error": .string("\(error)")])
            }
            guard waited < timing.historyWindow else { return }
            do {
                try await clock.sleep(for: timing.historyInterval)
            } catch {
                return
            }
            waited += timing.historyInterval
        }
    }
}
