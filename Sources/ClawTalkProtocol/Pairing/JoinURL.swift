import Foundation

/// A gateway join URL, `https://<gateway>[/<context>]/j/<shortcode>`, as printed by
/// `openclaw devices join-code` (protocol.md §9.1): single use, about 10 minutes.
///
/// Rules follow upstream's `openclaw connect` (`src/cli/connect-cli.ts`, `parseJoinTarget`, and
/// `src/pairing/join-code.ts`): `https://`, or `http://` to a loopback host only; no user info,
/// query or fragment; the path ends with `/j/<shortcode>`, where the shortcode is 16 random
/// bytes in unpadded base64url (22 characters of `A-Z a-z 0-9 - _`). Not
/// `CustomStringConvertible`: the shortcode is a bearer secret until it is redeemed.
public struct JoinURL: Sendable, Hashable {
    /// Length of an upstream shortcode.
    public static let shortcodeLength = 22

    /// `https`, or `http` (loopback only).
    public let isSecure: Bool
    /// Lowercase host (IPv6 without brackets).
    public let host: String
    /// TCP port (443 / 80 by default).
    public let port: Int
    /// The request path, `[/<context>]/j/<shortcode>`.
    public let path: String
    /// The shortcode.
    public let shortcode: String

    /// True when `input` is meant as a join URL (an `http://` or `https://` link); such input
    /// is parsed with ``parse(_:)`` and never as a setup code.
    public static func looksLikeJoinURL(_ input: String) -> Bool {
        let lowered = input.trimmingWhitespace().lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// Parses a join URL; every refusal is decided before any request.
    public static func parse(_ input: String) throws(JoinURLError) -> JoinURL {
        let text = input.trimmingWhitespace()
        guard let separator = text.range(of: "://") else { throw .notJoinURL }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { throw .unsupportedScheme(String(scheme.prefix(16))) }
        let rest = text[separator.upperBound...]
        if rest.contains("?") || rest.contains("#") { throw .invalidURL("query or fragment not allowed") }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let path = String(rest[authorityEnd...])
        if authority.contains("@") { throw .invalidURL("credentials in the URL are not allowed") }
        let secure = scheme == "https"
        // The host rules are the gateway URL's: reuse its parser on the same authority.
        let endpoint: GatewayEndpoint
        do {
            endpoint = try GatewayEndpoint.parse("\(secure ? "wss" : "ws")://\(authority)/")
        } catch {
            throw .invalidURL("invalid host or port")
        }
        let explicitPort = authority.range(of: "]:") != nil || (!authority.hasPrefix("[") && authority.contains(":"))
        let port = explicitPort ? endpoint.port : (secure ? 443 : 80)
        guard let marker = path.range(of: "/j/", options: .backwards), !path[marker.upperBound...].contains("/")
        else { throw .notJoinPath }
        let shortcode = String(path[marker.upperBound...])
        guard shortcode.count == shortcodeLength, shortcode.unicodeScalars.allSatisfy(isShortcodeScalar)
        else { throw .invalidShortcode }
        if !secure, !endpoint.isLoopback { throw .plaintextToRemote(host: endpoint.host) }
        return JoinURL(isSecure: secure, host: endpoint.host, port: port, path: path, shortcode: shortcode)
    }

    /// `https://host:port/…/j/…` with the shortcode elided, for messages and logs.
    public var redactedString: String {
        let host = host.contains(":") ? "[\(host)]" : host
        let prefix = path.dropLast(shortcode.count)
        return "\(isSecure ? "https" : "http")://\(host):\(port)\(prefix)…"
    }

    private static func isShortcodeScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "=" && Base64URLCode.isCodeScalar(scalar)
    }

    private init(isSecure: Bool, host: String, port: Int, path: String, shortcode: String) {
        self.isSecure = isSecure
        self.host = host
        self.port = port
        self.path = path
        self.shortcode = shortcode
    }
}

/// Why a join URL was refused (before any request).
public enum JoinURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No `scheme://`.
    case notJoinURL
    /// A scheme other than `https`/`http`.
    case unsupportedScheme(String)
    /// Bad host, port, user info, query or fragment (reason names which).
    case invalidURL(String)
    /// The path does not end with `/j/<shortcode>`.
    case notJoinPath
    /// The shortcode is not 22 base64url characters.
    case invalidShortcode
    /// `http://` to a host that is not loopback.
    case plaintextToRemote(host: String)

    /// One line, no shortcode.
    public var description: String {
        switch self {
        case .notJoinURL:
            "not a join URL: expected https://<gateway>/j/<code>"
        case .unsupportedScheme(let scheme):
            "join URL scheme '\(scheme)' is not supported: use https://"
        case .invalidURL(let reason):
            "invalid join URL: \(reason)"
        case .notJoinPath:
            "not a join URL: the path must end with /j/<code> (from `openclaw devices join-code`)"
        case .invalidShortcode:
            "invalid join URL: the code after /j/ must be \(JoinURL.shortcodeLength) base64url characters"
        case .plaintextToRemote(let host):
            "refusing plain http:// to \(host.clipped(64)): join URLs must use https:// (http is only for loopback)"
        }
    }
}
