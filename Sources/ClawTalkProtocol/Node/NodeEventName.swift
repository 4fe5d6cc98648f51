/// `node.event` names clawtalk sends (protocol.md §10.5).
public enum NodeEventName: String, Sendable, Hashable, Codable, CaseIterable {
    /// A transcript for an agent turn (node-only delivery).
    case voiceTranscript = "voice.transcript"
    /// Receive `chat` events for a session.
    case chatSubscribe = "chat.subscribe"
    /// Stop receiving `chat` events for a session.
    case chatUnsubscribe = "chat.unsubscribe"
    /// Presence ping, e.g. `trigger:"connect"` after `hello-ok`.
    case presenceAlive = "node.presence.alive"
}
