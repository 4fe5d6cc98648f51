/// `chat.subscribe` / `chat.unsubscribe` payload `{sessionKey}` (protocol.md §10.5).
public struct ChatSubscribe: Sendable, Hashable, Codable {
    /// The session whose `chat` events the node receives.
    public var sessionKey: String

    /// A subscription for `sessionKey`.
    public init(sessionKey: String) {
        self.sessionKey = sessionKey
    }
}
