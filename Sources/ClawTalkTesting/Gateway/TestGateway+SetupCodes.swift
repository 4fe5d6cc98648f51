import ClawTalkGateway
import ClawTalkProtocol

/// Setup-code fixtures of checklist 37 (protocol.md §9): each variant carries a freshly
/// minted bootstrap token of this gateway, so a node that accepts a valid code can redeem it.
public enum TestSetupCodeVariant: Sendable, CaseIterable {
    /// Raw base64url code, 10-minute expiry.
    case valid
    /// The same, wrapped as `oc-pair://<code>`.
    case validURL
    /// `expiresAtMs` one millisecond before the gateway clock.
    case expired
    /// A `tlsFingerprint` with a `ws://` URL.
    case fingerprintWithPlaintext
    /// A code longer than 2048 characters.
    case oversize
    /// A `ws://` URL to a non-local host.
    case nonLocalPlaintext

    /// True for the variants a node must accept.
    public var isValid: Bool { self == .valid || self == .validURL }
}

extension TestGateway {
    /// A setup code of `variant` for `url` (default: the loopback gateway port).
    public func setupCode(_ variant: TestSetupCodeVariant = .valid, url: String = "ws://127.0.0.1:18789") -> String {
        let token = mintBootstrapToken()
        var object: WireObject = [
            "url": .string(variant == .nonLocalPlaintext ? "ws://gateway.example.com:18789" : url),
            "bootstrapToken": .string(variant == .oversize ? token + String(repeating: "x", count: 2_100) : token),
            "expiresAtMs": .integer(variant == .expired ? nowMs - 1 : nowMs + configuration.bootstrapTokenLifetimeMs),
        ]
        if variant == .fingerprintWithPlaintext {
            object["tlsFingerprint"] = .string("sha256:" + String(repeating: "ab", count: 32))
        }
        let code = Base64URL.encode(Array(WireJSON.object(object).encodedString().utf8))
        return variant == .validURL ? "oc-pair://\(code)" : code
    }
}
