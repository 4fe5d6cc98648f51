import ClawTalkProtocol
import ClawTalkSupport

/// Scripted chat runs (talk.md §4, §11.2–§11.3): `chat` events go to operators and to
/// nodes subscribed to the session (only after `chat.subscribe`); `agent` events go to
/// operators only; finals are appended to the history. Streamed texts are cumulative; a
/// scripted text that does not extend the previous one of its stream restarts the reply, sent
/// in the form ``TestGatewayConfiguration/chatDeltaForm`` chooses.
extension TestGateway {
    func startChatRun(sessionKey: String, runId: String, userText: String) {
        let steps = queuedChatRuns.isEmpty ? script.chatRun : queuedChatRuns.removeFirst()
        appendHistory(sessionKey, role: "user", text: userText)
        children.spawn { await self.playChatRun(runId: runId, sessionKey: sessionKey, steps: steps) }
    }

    func playChatRun(runId: String, sessionKey: String, steps: [ChatScriptStep]) async {
        var seq = 0
        var chatText = ChatDeltaMarks()
        var agentText = ChatDeltaMarks()
        for step in steps {
            seq += 1
            let marked = configuration.chatDeltaForm == .marked
            switch step {
            case .pause(let ms):
                try? await Task.sleep(for: .milliseconds(ms))
            case .delta(let text):
                let marks = chatText.next(text)
                emitChat(
                    runId: runId, sessionKey: sessionKey, seq: seq, state: "delta", text: text,
                    deltaText: marked ? marks.delta : nil, replace: marked && marks.replace)
            case .final(let text):
                appendHistory(sessionKey, role: "assistant", text: text)
                emitChat(runId: runId, sessionKey: sessionKey, seq: seq, state: "final", text: text)
            case .aborted:
                emitChat(runId: runId, sessionKey: sessionKey, seq: seq, state: "aborted", text: nil)
            case .error(let message):
                emitChat(
                    runId: runId, sessionKey: sessionKey, seq: seq, state: "error", text: nil, errorMessage: message)
            case .agentText(let text):
                let marks = agentText.next(text)
                var data: WireObject = ["text": .string(text)]
                if marked {
                    data["delta"] = .string(marks.delta)
                    if marks.replace { data["replace"] = true }
                }
                emitAgent([
                    "runId": .string(runId), "stream": "assistant", "seq": .integer(Int64(seq)), "data": .object(data),
                ])
            case .agentEnd:
                emitAgent([
                    "runId": .string(runId), "stream": "lifecycle", "seq": .integer(Int64(seq)),
                    "data": ["phase": "end"],
                ])
            }
        }
    }

    /// Sends one `chat` event for `sessionKey` to operators and subscribed nodes, with
    /// `deltaText` and `replace:true` when given.
    public func emitChat(
        runId: String, sessionKey: String, seq: Int, state: String, text: String?, errorMessage: String? = nil,
        deltaText: String? = nil, replace: Bool = false
    ) {
        let echoedKey = configuration.canonicalChatSessionKeys ? "agent:main:\(sessionKey)" : sessionKey
        var payload: WireObject = [
            "runId": .string(runId), "sessionKey": .string(echoedKey), "seq": .integer(Int64(seq)),
            "state": .string(state),
        ]
        if let text { payload["message"] = Self.assistantMessage(text) }
        if let errorMessage { payload["errorMessage"] = .string(errorMessage) }
        if let deltaText { payload["deltaText"] = .string(deltaText) }
        if replace { payload["replace"] = true }
        broadcast("chat", .object(payload)) { session in
            session.isOperator || (session.isNode && session.chatSubscriptions.contains(sessionKey))
        }
    }

    func emitAgent(_ payload: WireJSON) {
        broadcast("agent", payload, to: \.isOperator)
    }

    static func assistantMessage(_ text: String) -> WireJSON {
        ["role": "assistant", "content": [["type": "text", "text": .string(text)]]]
    }

    func appendHistory(_ sessionKey: String, role: String, text: String) {
        let message: WireJSON = [
            "role": .string(role), "content": [["type": "text", "text": .string(text)]], "timestamp": .integer(nowMs),
        ]
        chatHistory[sessionKey, default: []].append(message)
    }
}

/// The marks a newer gateway puts on one stream's cumulative texts: the part added since the
/// previous text (`deltaText`, `data.delta`), and `replace:true` when a text does not extend
/// the previous one (then the added part is the whole new text).
struct ChatDeltaMarks {
    private var previous = ""

    /// The marks of `text`, the stream's next cumulative text.
    mutating func next(_ text: String) -> (delta: String, replace: Bool) {
        defer { previous = text }
        guard text.hasPrefix(previous) else { return (text, true) }
        return (String(text.dropFirst(previous.count)), false)
    }
}
