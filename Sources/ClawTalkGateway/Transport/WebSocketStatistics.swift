/// Counters of one socket, for periodic logging.
public struct WebSocketStatistics: Sendable, Hashable {
    /// Complete messages delivered.
    public var messagesReceived: Int = 0
    /// Payload bytes of those messages.
    public var bytesReceived: Int = 0
    /// Pongs received (answers to keepalive pings).
    public var pongsReceived: Int = 0

    /// All zero.
    public init() {}
}
