/// Where a finished utterance goes (talk.md §3): `chat.send` on the operator connection in
/// full mode, `voice.transcript` on the node connection otherwise, or the persistent outbox while
/// the gateway is offline. Implemented by `TranscriptDelivery`; PTT, voice wake and Talk mode only
/// see this seam.
public protocol TranscriptDelivering: Sendable {
    /// Hands `transcript` (already trimmed, non-empty) to the gateway or the outbox.
    func deliver(_ transcript: String, source: TranscriptSource) async -> DeliveryReceipt
    /// Hands a voice-wake command over with the trigger that started it (the `agent` route sends
    /// it as `voiceWakeTrigger`; trigger routing picks the session by it).
    func deliver(_ transcript: String, source: TranscriptSource, trigger: String?) async -> DeliveryReceipt
}

extension TranscriptDelivering {
    /// Routes that do not use the trigger ignore it.
    public func deliver(_ transcript: String, source: TranscriptSource, trigger: String?) async -> DeliveryReceipt {
        await deliver(transcript, source: source)
    }
}

/// Which feature produced a transcript (it picks the route, talk.md §3.1).
public enum TranscriptSource: String, Sendable, Hashable {
    /// Remote (`talk.ptt.*`) or local (hotkey, CLI) push-to-talk.
    case pushToTalk
    /// A Talk-mode turn.
    case talkMode
    /// A voice-wake command.
    case voiceWake
}

/// What happened to a delivered transcript.
public struct DeliveryReceipt: Sendable, Equatable {
    /// How it left the node.
    public enum Outcome: Sendable, Equatable {
        /// Sent on a connected route; the reply will be tracked (PTT status `queued`).
        case sent(route: Route)
        /// No route connected: kept in the outbox, sent in order on reconnect (PTT status `offline`).
        case queuedOffline
        /// Could not be sent or kept (e.g. outbox full); the reason is one line.
        case failed(String)
    }

    /// The route a sent transcript took.
    public enum Route: String, Sendable, Equatable {
        /// Operator `chat.send`.
        case chatSend
        /// Node event `voice.transcript`.
        case voiceTranscript
        /// Operator `agent`.
        case agent
    }

    /// What happened.
    public var outcome: Outcome
    /// The idempotency key / event id used, for log correlation.
    public var id: String

    /// Creates a receipt.
    public init(outcome: Outcome, id: String) {
        self.outcome = outcome
        self.id = id
    }
}
