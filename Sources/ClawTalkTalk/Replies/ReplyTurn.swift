import ClawTalkProtocol

/// The state of the one user turn ``ReplyTrackingMachine`` follows.
struct ReplyTurn: Sendable {
    let id: Int
    let sessionKey: String
    let prompt: String
    let sentAtMs: Int64
    /// The run followed; nil until bound (full mode) or adopted (node-only).
    var runId: String?
    /// Adopt the first run seen on ``sessionKey`` (talk.md §4.2).
    var adopting: Bool
    /// The streamed reply and what of it is spoken (talk.md §4.3).
    var reply: StreamedReply
    /// Dedupe keys of handled events (the node and operator connections may both deliver one).
    var seen: Set<String> = []
    /// An event of the run arrived (no history fallback needed).
    var sawEvent = false
    /// Segments reported to speech so far.
    var reportedSegments = 0
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
