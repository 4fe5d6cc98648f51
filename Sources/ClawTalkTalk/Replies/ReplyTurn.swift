import ClawTalkProtocol

/// The state of the one user turn ``ReplyTracker`` follows.
struct ReplyTurn: Sendable {
    /// Which stream's text drives incremental speech (the first that brings text).
    enum Lead: Sendable {
        /// `agent` `stream:"assistant"` events.
        case agent
        /// `chat` `state:"delta"` events.
        case chat
    }

    let id: Int
    let sessionKey: String
    let prompt: String
    let sentAtMs: Int64
    /// Emit segments while the reply streams (else only at `final`).
    let incremental: Bool
    /// The run followed; nil until bound (full mode) or adopted (node-only).
    var runId: String?
    /// Adopt the first run seen on ``sessionKey`` (§4.2).
    var adopting: Bool
    var lead: Lead?
    var chatText = ReplyText()
    var agentText = ReplyText()
    var buffer: SpeakableTextBuffer
    /// Dedupe keys of handled events (the node and operator connections may both deliver one).
    var seen: Set<String> = []
    /// An event of the run arrived (no history fallback needed).
    var sawEvent = false
    var timers: [Task<Void, Never>] = []

    /// The best text held when the run ends without a final text.
    var heldText: String {
        chatText.text.isEmpty ? agentText.text : chatText.text
    }
}

/// An event kept while the turn's run id is not known yet.
enum BacklogEvent: Sendable {
    /// A `chat` event and whether it came through the node's subscription.
    case chat(ChatEvent, viaNode: Bool)
    /// An `agent` event (operator only).
    case agent(AgentEvent)

    var runId: String {
        switch self {
        case .chat(let event, _): event.runId
        case .agent(let event): event.runId
        }
    }
}
