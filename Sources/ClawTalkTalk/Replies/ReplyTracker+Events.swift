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

    /// Matches an event to the current turn (see ``ReplyTrackingMachine/receive(_:)``).
    func receive(_ event: BacklogEvent) {
        perform(machine.receive(event))
    }

    /// `chat.history` fallback (talk.md §4.1): every ``Timing/historyInterval`` for up to
    /// ``Timing/historyWindow`` while the turn has seen no event (`force`: regardless).
    func pollHistory(_ id: Int, force: Bool) async {
        var waited = Duration.zero
        while true {
            guard let query = machine.historyQuery(turn: id, force: force) else { return }
            guard let session = operatorSession else {
                logger.debug("reply.history.unavailable", ["turn": .int(id), "reason": "no operator connection"])
                return
            }
            logger.debug("reply.history.poll", ["turn": .int(id)])
            do {
                let params: WireJSON = [
                    "sessionKey": .string(query.sessionKey), "limit": .integer(Int64(timing.historyLimit)),
                ]
                let payload = try await session.call(
                    OperatorMethod.chatHistory.rawValue, params: params, timeout: .seconds(5))
                if let text = ChatHistoryReply.reply(in: payload, sentAtMs: query.sentAtMs, prompt: query.prompt) {
                    guard machine.turn?.id == id else { return }
                    logger.info("reply.history.found", ["turn": .int(id)])
                    perform(machine.historyFound(turn: id, text: text))
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
