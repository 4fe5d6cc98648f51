public import Foundation

/// A parsed gateway setup code (protocol.md §9): where to connect and the credential
/// for the first connect. Not `CustomStringConvertible`: it holds tokens.
public struct SetupCode: Sendable, Hashable {
    /// Longest accepted code, characters.
    public static let maxCodeLength = 2048
    /// Largest accepted decoded JSON, bytes.
    public static let maxPayloadBytes = 4096
    /// Longest accepted bootstrap token, characters.
    public static let maxBootstrapTokenLength = 512
    /// Most endpoints kept (`url` plus `urls`).
    public static let maxEndpoints = 8

    /// Primary endpoint (`url`, or legacy `host`/`port`/`tls`).
    public var endpoint: GatewayEndpoint
    /// Ordered fallbacks from `urls`, without duplicates or the primary.
    public var fallbackEndpoints: [GatewayEndpoint]
    /// Single-use bootstrap token.
    public var bootstrapToken: String?
    /// Expiry, milliseconds since the epoch.
    public var expiresAtMs: Int64?
    /// Normalized leaf pin, valid for the primary endpoint only.
    public var tlsFingerprint: String?
    /// Legacy shared token.
    public var token: String?
    /// Legacy shared password.
    public var password: String?

    /// A setup code with the given values (unvalidated).
    public init(
        endpoint: GatewayEndpoint, fallbackEndpoints: [GatewayEndpoint] = [], bootstrapToken: String? = nil,
        expiresAtMs: Int64? = nil, tlsFingerprint: String? = nil, token: String? = nil, password: String? = nil
    ) {
        self.endpoint = endpoint
        self.fallbackEndpoints = fallbackEndpoints
        self.bootstrapToken = bootstrapToken
        self.expiresAtMs = expiresAtMs
        self.tlsFingerprint = tlsFingerprint
        self.token = token
        self.password = password
    }

    /// Primary first, then the fallbacks.
    public var endpoints: [GatewayEndpoint] {
        [endpoint] + fallbackEndpoints
    }

    /// The credential for the first connect: the bootstrap token, else the legacy shared secret.
    public var connectAuth: ConnectAuth {
        if let bootstrapToken { return .bootstrapToken(bootstrapToken) }
        if let token { return .token(token) }
        return ConnectAuth(password: password)
    }

    /// Parses user input: a base64url code, `oc-pair://<code>` (prefix in any case), raw JSON,
    /// or a pasted message with a `Setup code:` line (else any code-like token in it).
    /// - Parameter now: the current time, for `expiresAtMs`.
    public static func parse(_ input: String, now: Date) throws(SetupCodeError) -> SetupCode {
        let text = input.trimmingWhitespace()
        guard !text.isEmpty else { throw .empty }
        if text.hasPrefix("{") { return try decode(json: Array(text.utf8), now: now) }
        if let code = stripPairPrefix(text) { return try decode(code: code, now: now) }
        if hasHTTPScheme(text) {
            throw .invalidURL(joinError(text))
        }
        if text.unicodeScalars.contains(where: { $0.properties.isWhitespace }) {
            guard let code = extractCode(fromMessage: text) else {
                throw .undecodable("no setup code found in the text")
            }
            return try decode(code: stripPairPrefix(code) ?? code, now: now)
        }
        return try decode(code: text, now: now)
    }

    // MARK: - Input forms

    private static let pairPrefix = "oc-pair://"

    private static func stripPairPrefix(_ text: String) -> String? {
        guard text.lowercased().hasPrefix(pairPrefix) else { return nil }
        var code = Substring(text.dropFirst(pairPrefix.count))
        while code.hasSuffix("/") { code = code.dropLast() }
        return String(code)
    }

    private static func hasHTTPScheme(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    private static func joinError(_ text: String) -> GatewayEndpointError {
        do {
            _ = try GatewayEndpoint.parse(text)
            return .joinURLNotSupported
        } catch {
            return error
        }
    }

    /// The code from a `Setup code:` line (rest of the line, or the next non-empty line), else
    /// an `oc-pair://` token, else the first token of ≥ 24 base64url characters.
    private static func extractCode(fromMessage text: String) -> String? {
        let lines = text.split(whereSeparator: \.isNewline).map { String($0) }
        let quotes = CharacterSet(charactersIn: "`'\"“”‘’()[]<>.,;").union(.whitespaces)
        for (index, line) in lines.enumerated() {
            guard let range = line.range(of: "setup code:", options: .caseInsensitive) else { continue }
            let rest = line[range.upperBound...].trimmingCharacters(in: quotes)
            if !rest.isEmpty { return rest }
            if let next = lines[(index + 1)...].first(where: { !$0.trimmingWhitespace().isEmpty }) {
                return next.trimmingCharacters(in: quotes)
            }
        }
        let tokens = text.split(whereSeparator: { $0.isWhitespace }).map { $0.trimmingCharacters(in: quotes) }
        if let url = tokens.first(where: { $0.lowercased().hasPrefix(pairPrefix) }) { return url }
        return tokens.first { token in
            token.count >= 24 && token.unicodeScalars.allSatisfy { Base64URLCode.isCodeScalar($0) }
        }
    }

    // MARK: - Decoding

    private static func decode(code: String, now: Date) throws(SetupCodeError) -> SetupCode {
        guard code.count <= maxCodeLength else { throw .codeTooLong(length: code.count) }
        guard !code.isEmpty else { throw .empty }
        guard let bytes = Base64URLCode.decode(code) else { throw .undecodable("not base64url") }
        return try decode(json: bytes, now: now)
    }

    private static func decode(json bytes: [UInt8], now: Date) throws(SetupCodeError) -> SetupCode {
        guard bytes.count <= maxPayloadBytes else { throw .payloadTooLarge(bytes: bytes.count) }
        guard let json = try? WireJSON(parsing: bytes) else { throw .undecodable("not JSON") }
        guard let object = json.objectValue else { throw .undecodable("not a JSON object") }
        return try SetupCode(object: object, now: now)
    }

    private init(object: WireObject, now: Date) throws(SetupCodeError) {
        func string(_ key: String) throws(SetupCodeError) -> String? {
            guard let value = object[key], !value.isNull else { return nil }
            guard let string = value.stringValue else { throw .invalidField(key) }
            return string.isEmpty ? nil : string
        }

        let bootstrapToken = try string("bootstrapToken")
        if let bootstrapToken, bootstrapToken.count > Self.maxBootstrapTokenLength {
            throw .bootstrapTokenTooLong(length: bootstrapToken.count)
        }
        var expiresAtMs: Int64?
        if let value = object["expiresAtMs"], !value.isNull {
            guard let ms = value.int64Value else { throw .invalidField("expiresAtMs") }
            let nowMs = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
            if ms <= nowMs { throw .expired(expiresAtMs: ms) }
            expiresAtMs = ms
        }
        let token = try string("token")
        let password = try string("password")
        guard bootstrapToken != nil || token != nil || password != nil else { throw .missingCredential }

        var tlsFingerprint: String?
        if let raw = try string("tlsFingerprint") {
            guard let normalized = TLSFingerprint.normalize(raw) else { throw .invalidFingerprint }
            tlsFingerprint = normalized
        }

        let primary = try Self.primaryEndpoint(object, string: string)
        var fallbacks: [GatewayEndpoint] = []
        if let urls = object["urls"], !urls.isNull {
            guard let list = urls.arrayValue else { throw .invalidField("urls") }
            for item in list {
                guard let text = item.stringValue else { throw .invalidField("urls") }
                let endpoint: GatewayEndpoint
                do {
                    endpoint = try GatewayEndpoint.parse(text)
                } catch {
                    throw .invalidURL(error)
                }
                if endpoint != primary, !fallbacks.contains(endpoint), fallbacks.count < Self.maxEndpoints - 1 {
                    fallbacks.append(endpoint)
                }
            }
        }
        if tlsFingerprint != nil, !primary.isSecure { throw .fingerprintWithPlaintext }
        for endpoint in [primary] + fallbacks where !endpoint.isTransportAllowed {
            throw .insecureRemote(host: endpoint.host)
        }
        self.init(
            endpoint: primary, fallbackEndpoints: fallbacks, bootstrapToken: bootstrapToken, expiresAtMs: expiresAtMs,
            tlsFingerprint: tlsFingerprint, token: token, password: password)
    }

    /// `url`, else legacy `{host, port?, tls?=true}`.
    private static func primaryEndpoint(
        _ object: WireObject, string: (String) throws(SetupCodeError) -> String?
    ) throws(SetupCodeError) -> GatewayEndpoint {
        if let url = try string("url") {
            do {
                return try GatewayEndpoint.parse(url)
            } catch {
                throw .invalidURL(error)
            }
        }
        guard let host = try string("host") else { throw .missingURL }
        var port: Int?
        if let value = object["port"], !value.isNull {
            guard let int = value.intValue else { throw .invalidField("port") }
            port = int
        }
        var tls = true
        if let value = object["tls"], !value.isNull {
            guard let bool = value.boolValue else { throw .invalidField("tls") }
            tls = bool
        }
        do {
            return try GatewayEndpoint(scheme: tls ? .wss : .ws, host: host, port: port)
        } catch {
            throw .invalidURL(error)
        }
    }
}
