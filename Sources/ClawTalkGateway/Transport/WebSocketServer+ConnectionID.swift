extension WebSocketServer {
    /// Names one accepted connection; ids count up from 1 and are never reused by a server.
    public struct ConnectionID: Sendable, Hashable, CustomStringConvertible {
        /// The shim's connection number.
        public let rawValue: UInt64

        /// Wraps a raw connection number.
        public init(rawValue: UInt64) {
            self.rawValue = rawValue
        }

        /// `#<n>`.
        public var description: String { "#\(rawValue)" }
    }
}
