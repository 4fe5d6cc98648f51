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
                turn = current
                advance(chat.streamedText, from: .chat)
            case .final?:
                turn = current
                finish(current.id, finalText: chat.text)
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
            turn = current
            if let piece = agent.streamedText { advance(piece, from: .agent) }
            if agent.isLifecycleEnd, let held = turn?.reply.heldText, !held.isEmpty {
                finish(current.id, finalText: nil)
            }
        }
    }

    /// Feeds one streamed piece to the turn's reply and reports the segments it made speakable.
    private func advance(_ piece: StreamedText, from source: StreamedReply.Source) {
        guard var current = turn else { return }
        let step = current.reply.receive(piece, from: source)
        turn = current
        if step.change == .rewritten {
            logger.debug(
                "reply.rewritten",
                [
                    "turn": .int(current.id), "source": .string(source.rawValue), "lead": .bool(step.fromLead),
                    "replace": .bool(piece.replace),
                ])
        }
        report(step.segments, of: &current)
        turn = current
    }

    /// Publishes what a rewrite of `current`'s reply withdrew, then `segments` (numbered from
    /// the turn's first segment).
    func report(_ segments: [String], of current: inout ReplyTurn) {
        let withdrawn = current.reply.takeWithdrawals()
        if !withdrawn.isEmpty { publish(.withdrawn(turn: current.id, segments: withdrawn)) }
        for (offset, segment) in segments.enumerated() {
            publish(
                .segment(
                    turn: current.id, index: current.reportedSegments + offset, text: segment,
                    directive: current.reply.directive))
        }
        current.reportedSegments += segments.count
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

extension ChatEvent {
    /// The streamed piece of a `chat` delta: cumulative text, `deltaText`, `replace`.
    var streamedText: StreamedText {
        StreamedText(text: text, delta: deltaText, replace: replace == true)
    }
}

extension AgentEvent {
    /// The streamed piece of an `agent` `assistant` event (`data.text`, `data.delta`,
    /// `data.replace`); nil for other events.
    var streamedText: StreamedText? {
        guard isAssistantUpdate else { return nil }
        return StreamedText(text: data.text ?? "", delta: data.delta, replace: data.replace == true)
    }
}
