/// How a ``WebSocketClient`` connects.
public struct WebSocketConfiguration: Sendable, Hashable {
    /// The receive limit current gateways advertise as `policy.maxPayload` (25 MiB).
    public static let defaultMaxMessageBytes = 26_214_400

    /// `ws://` or `wss://` URL; the path (context path) is preserved exactly.
    public var url: String
    /// Inbound messages larger than this close the socket with 1009 (default 25 MiB).
    public var maxMessageBytes: Int
    /// A WebSocket ping every this many seconds (default 15, protocol.md §4.3; 0 = never).
    /// When nothing at all (pong, message) arrives for 3x this long the socket is dropped.
    public var pingIntervalSeconds: Int
    /// Pinned SHA-256 of the server's DER leaf certificate (`wss://` only; ignored for `ws://`).
    /// Accepted forms: 64 hex digits, optionally with `sha256:` prefix, colons or whitespace.
    public var tlsPinSHA256: String?
    /// PEM file of trust anchors used instead of the system store when there is no pin (a
    /// private CA, or tests); nil = the system store.
    public var trustedRootsPath: String?

    /// A configuration with the defaults above.
    public init(
        url: String, maxMessageBytes: Int = Self.defaultMaxMessageBytes, pingIntervalSeconds: Int = 15,
        tlsPinSHA256: String? = nil, trustedRootsPath: String? = nil
    ) {
        self.url = url
        self.maxMessageBytes = maxMessageBytes
        self.pingIntervalSeconds = pingIntervalSeconds
        self.tlsPinSHA256 = tlsPinSHA256
        self.trustedRootsPath = trustedRootsPath
    }

    /// Normalises a pin (protocol.md §17.1): strips a `sha256:`/`sha-256:` prefix, colons
    /// and whitespace, lowercases; nil unless 64 hex digits remain.
    public static func normalizedPin(_ raw: String) -> String? {
        var text = raw.lowercased().filter { !$0.isWhitespace && $0 != ":" }
        for prefix in ["sha256", "sha-256"] where text.hasPrefix(prefix) {
            text.removeFirst(prefix.count)
            break
        }
        guard text.count == 64, text.allSatisfy({ $0.isHexDigit && $0.isASCII }) else { return nil }
        return text
    }
}
