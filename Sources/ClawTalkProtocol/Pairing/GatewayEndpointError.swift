/// Why a gateway URL was refused.
public enum GatewayEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a `ws://` / `wss://` URL of the accepted shape.
    case invalidURL(String)
    /// A scheme other than `ws`/`wss`.
    case unsupportedScheme(String)
    /// An `https://<gateway>/j/<code>` join link, which is not a gateway URL (`clawtalk pair` redeems it).
    case joinURLNotSupported

    /// One line.
    public var description: String {
        switch self {
        case .invalidURL(let reason):
            "invalid gateway URL: \(reason)"
        case .unsupportedScheme(let scheme):
            "unsupported gateway URL scheme '\(scheme.clipped(16))': use ws:// or wss://"
        case .joinURLNotSupported:
            "this is a join URL, not a gateway URL: pass it to `clawtalk pair <join URL>`"
        }
    }
}
