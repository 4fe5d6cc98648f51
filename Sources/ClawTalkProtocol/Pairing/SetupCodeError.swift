/// Why a setup code was refused (protocol.md §9.3). Every case is decided before any
/// connect attempt. Messages never contain tokens.
public enum SetupCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing was entered.
    case empty
    /// The code is longer than 2048 characters.
    case codeTooLong(length: Int)
    /// The decoded JSON is larger than 4 KiB.
    case payloadTooLarge(bytes: Int)
    /// Not base64url of a JSON object (reason names the step, not the content).
    case undecodable(String)
    /// A field has the wrong type.
    case invalidField(String)
    /// Neither `url` nor legacy `host` is present.
    case missingURL
    /// `url`, `urls` or legacy host/port do not form a valid endpoint.
    case invalidURL(GatewayEndpointError)
    /// No `bootstrapToken`, `token` or `password`.
    case missingCredential
    /// `bootstrapToken` is longer than 512 characters.
    case bootstrapTokenTooLong(length: Int)
    /// `expiresAtMs` is not in the future.
    case expired(expiresAtMs: Int64)
    /// `tlsFingerprint` is not a SHA-256 pin.
    case invalidFingerprint
    /// `tlsFingerprint` given for a `ws://` URL.
    case fingerprintWithPlaintext
    /// A `ws://` URL to a host outside the local network (protocol.md §17.2).
    case insecureRemote(host: String)

    /// One line, no secrets.
    public var description: String {
        switch self {
        case .empty:
            "setup code is empty"
        case .codeTooLong(let length):
            "setup code is too long (\(length) characters, limit \(SetupCode.maxCodeLength))"
        case .payloadTooLarge(let bytes):
            "setup code payload is too large (\(bytes) bytes, limit \(SetupCode.maxPayloadBytes))"
        case .undecodable(let reason):
            "setup code cannot be decoded: \(reason)"
        case .invalidField(let field):
            "setup code field '\(field)' has an invalid value"
        case .missingURL:
            "setup code has no gateway URL"
        case .invalidURL(let error):
            "setup code: \(error)"
        case .missingCredential:
            "setup code has no bootstrap token or shared secret"
        case .bootstrapTokenTooLong(let length):
            "setup code bootstrap token is too long (\(length) characters, limit \(SetupCode.maxBootstrapTokenLength))"
        case .expired(let expiresAtMs):
            "setup code expired (expiresAtMs \(expiresAtMs)); mint a new one with `openclaw qr`"
        case .invalidFingerprint:
            "setup code TLS fingerprint is not a SHA-256 hex digest"
        case .fingerprintWithPlaintext:
            "setup code pins a TLS certificate for a plaintext ws:// URL"
        case .insecureRemote(let host):
            "setup code uses plaintext ws:// to non-local host \(host.clipped(64)); wss:// is required"
        }
    }
}
