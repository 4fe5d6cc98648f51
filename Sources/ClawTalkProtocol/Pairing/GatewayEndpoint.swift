import Foundation

/// A gateway WebSocket endpoint `ws(s)://host:port[/contextPath]` (protocol.md §2,
/// §11, §17). The host is stored lowercase (IPv6 without brackets); the path is kept
/// exactly as given (`/` when empty).
public struct GatewayEndpoint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// URL scheme.
    public enum Scheme: String, Sendable, Hashable, Codable {
        /// Plaintext; only to local-network hosts (protocol.md §17.2).
        case ws
        /// TLS.
        case wss
    }

    /// Default gateway port (also the default for `ws://` without a port).
    public static let defaultPort = 18789
    /// Default port for `wss://` without a port.
    public static let defaultTLSPort = 443
    /// `ws://127.0.0.1:18789/`, the default endpoint.
    public static let localDefault = GatewayEndpoint(
        uncheckedScheme: .ws, host: "127.0.0.1", port: defaultPort, path: "/")

    /// `ws` or `wss`.
    public let scheme: Scheme
    /// Lowercase host name or IP literal (IPv6 without brackets).
    public let host: String
    /// Port, 1–65535.
    public let port: Int
    /// Request path: `/` or the context path, exactly as configured.
    public let path: String

    private init(uncheckedScheme scheme: Scheme, host: String, port: Int, path: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
    }

    /// An endpoint from parts (legacy setup codes `{host, port?, tls?}`).
    /// - Throws: ``GatewayEndpointError/invalidURL(_:)`` for a bad host, port or path.
    public init(scheme: Scheme, host: String, port: Int? = nil, path: String = "/") throws(GatewayEndpointError) {
        var host = host.trimmingWhitespace()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let normalized = Self.validHost(host) else { throw .invalidURL("invalid host") }
        let port = port ?? (scheme == .wss ? Self.defaultTLSPort : Self.defaultPort)
        guard (1...65535).contains(port) else { throw .invalidURL("port out of range") }
        let path = path.isEmpty ? "/" : path
        guard path.hasPrefix("/"), path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw .invalidURL("invalid path")
        }
        self.init(uncheckedScheme: scheme, host: normalized, port: port, path: path)
    }

    /// Parses `ws(s)://host[:port][/path]`. User info, query and fragment are refused;
    /// `https://…/j/…` join links get a dedicated error.
    public static func parse(_ string: String) throws(GatewayEndpointError) -> GatewayEndpoint {
        let text = string.trimmingWhitespace()
        guard let separator = text.range(of: "://") else { throw .invalidURL("missing scheme") }
        let schemeText = text[..<separator.lowerBound].lowercased()
        let rest = text[separator.upperBound...]
        let scheme: Scheme
        switch schemeText {
        case "ws": scheme = .ws
        case "wss": scheme = .wss
        case "https", "http":
            if rest.contains("/j/") { throw .joinURLNotSupported }
            throw .unsupportedScheme(schemeText)
        default:
            throw .unsupportedScheme(schemeText)
        }
        if rest.contains("?") || rest.contains("#") { throw .invalidURL("query or fragment not supported") }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let path = String(rest[authorityEnd...])
        if authority.contains("@") { throw .invalidURL("credentials in URL not supported") }

        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL("unterminated IPv6 literal") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL("invalid authority") }
                portText = after.dropFirst()
            }
            guard IPAddress.parseIPv6(host) != nil else { throw .invalidURL("invalid IPv6 literal") }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw .invalidURL("IPv6 literals need brackets") }
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
        }
        var port: Int?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCII), let value = Int(portText)
            else {
                throw .invalidURL("invalid port")
            }
            port = value
        }
        return try GatewayEndpoint(scheme: scheme, host: String(host), port: port, path: path)
    }

    /// Decodes a stored endpoint (its URL string), validating it like ``parse(_:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try GatewayEndpoint.parse(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the endpoint as its URL string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(urlString)
    }

    /// Host as written in a URL (IPv6 in brackets).
    public var urlHost: String {
        host.contains(":") ? "[\(host)]" : host
    }

    /// The full URL, always with an explicit port.
    public var urlString: String {
        "\(scheme.rawValue)://\(urlHost):\(port)\(path)"
    }

    /// The context path: `""` for `/`, else the path as configured.
    public var contextPath: String {
        path == "/" ? "" : path
    }

    /// Key for per-gateway state (protocol.md §11): lowercase `host:port` + context path.
    public var gatewayKey: String {
        "\(urlHost):\(port)\(contextPath)"
    }

    /// Key for TLS pins (protocol.md §17.1): `host:port`.
    public var pinKey: String {
        "\(urlHost):\(port)"
    }

    /// Uses TLS.
    public var isSecure: Bool {
        scheme == .wss
    }

    /// Loopback host: `127.0.0.0/8`, `::1` (also IPv4-mapped), `localhost`.
    public var isLoopback: Bool {
        IPAddress.isLoopback(host)
    }

    /// Host a plaintext `ws://` may reach (protocol.md §17.2): loopback, RFC 1918, link-local
    /// (`169.254/16`, `fe80::/10`), CGNAT (`100.64/10`), ULA (`fc00::/7`), `*.local`, `*.ts.net`.
    public var isLocalNetwork: Bool {
        IPAddress.isLocalNetwork(host)
    }

    /// `wss://`, or `ws://` to a local-network host.
    public var isTransportAllowed: Bool {
        isSecure || isLocalNetwork
    }

    /// Trusted endpoint (protocol.md §17.1): loopback, or `wss://` with a pin.
    public func isTrusted(pinned: Bool) -> Bool {
        isLoopback || (isSecure && pinned)
    }

    /// ``urlString``.
    public var description: String { urlString }

    /// Lowercase host when it is a valid DNS name, IPv4 or IPv6 literal.
    private static func validHost(_ host: String) -> String? {
        guard !host.isEmpty, host.utf8.count <= 253 else { return nil }
        let lowered = host.lowercased()
        if lowered.contains(":") { return IPAddress.parseIPv6(Substring(lowered)) != nil ? lowered : nil }
        let allowed = lowered.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
        }
        guard allowed, !lowered.hasPrefix("."), !lowered.contains("..") else { return nil }
        return lowered
    }
}
