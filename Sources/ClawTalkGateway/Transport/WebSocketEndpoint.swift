import Foundation

/// A parsed `ws://` / `wss://` URL: what the transport dials and what a TLS pin is keyed by.
///
/// The path (with any query) is kept exactly as written, so a gateway's context path such as
/// `/openclaw-gw` survives; only a `#fragment` is dropped. The host is lowercased, IPv6 literals
/// are stored without brackets. User info (`user@host`) is rejected: credentials never travel
/// in the URL.
public struct WebSocketEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// True for `wss://`.
    public var isSecure: Bool
    /// Host name or IP literal (IPv6 without brackets), lowercased.
    public var host: String
    /// TCP port (the scheme's default when the URL has none).
    public var port: Int
    /// Request path starting with `/`, including the query.
    public var path: String

    /// Parses `url`; throws ``TransportError/invalidURL(_:)`` with the reason.
    public init(parsing url: String) throws(TransportError) {
        let text = url.trimmingWhitespace
        guard let separator = text.range(of: "://") else { throw .invalidURL("missing scheme") }
        switch text[..<separator.lowerBound].lowercased() {
        case "ws": isSecure = false
        case "wss": isSecure = true
        default: throw .invalidURL("scheme must be ws or wss")
        }
        var rest = text[separator.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var requestTarget = String(rest[authorityEnd...])
        if requestTarget.isEmpty || requestTarget.hasPrefix("?") { requestTarget = "/" + requestTarget }
        guard !authority.contains("@") else { throw .invalidURL("user info is not allowed") }

        let (host, portText) = try Self.split(authority: authority)
        guard !host.isEmpty else { throw .invalidURL("missing host") }
        guard host.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value != 0x7f })
        else { throw .invalidURL("host contains invalid characters") }
        self.host = host.lowercased()
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port),
                portText.allSatisfy(\.isASCII)
            else { throw .invalidURL("port must be 1-65535") }
            self.port = port
        } else {
            self.port = isSecure ? 443 : 80
        }
        guard requestTarget.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f }) else {
            throw .invalidURL("path contains spaces or control characters")
        }
        self.path = requestTarget
    }

    /// `host:port`, the key TLS pins are stored under (IPv6 in brackets).
    public var hostPort: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The URL in normal form, e.g. `wss://gw.example:18789/openclaw-gw`.
    public var description: String {
        "\(isSecure ? "wss" : "ws")://\(hostPort)\(path)"
    }

    private static func split(
        authority: Substring
    ) throws(TransportError) -> (host: String, port: String?) {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .invalidURL("unterminated IPv6 literal")
            }
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.isEmpty { return (host, nil) }
            guard after.hasPrefix(":") else { throw .invalidURL("junk after IPv6 literal") }
            return (host, String(after.dropFirst()))
        }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return (String(parts[0]), nil)
        case 2: return (String(parts[0]), String(parts[1]))
        default: throw .invalidURL("IPv6 literals need brackets")
        }
    }
}

extension StringProtocol {
    fileprivate var trimmingWhitespace: Substring {
        let scalars = Substring(self)
        let start = scalars.firstIndex { !$0.isWhitespace } ?? scalars.endIndex
        let end = scalars.lastIndex { !$0.isWhitespace }.map { scalars.index(after: $0) } ?? start
        return scalars[start..<end]
    }
}
