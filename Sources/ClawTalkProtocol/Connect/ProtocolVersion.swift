/// Gateway protocol versions (protocol.md §4.1). clawtalk sends `minProtocol:3,
/// maxProtocol:4` on both connections and behaves the same under either.
public enum ProtocolVersion {
    /// The current server constant (`PROTOCOL_VERSION`).
    public static let current = 4
    /// `minProtocol` clawtalk sends.
    public static let clientMinimum = 3
    /// `maxProtocol` clawtalk sends.
    public static let clientMaximum = 4
}
