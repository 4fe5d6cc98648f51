public import ClawTalkProtocol

/// The TXT hints of an `_openclaw-gw._tcp` service (protocol.md §17.3), decoded per
/// RFC 6763 §6: keys are case-insensitive, the first occurrence wins, a key without `=` is a
/// present boolean attribute, and a string with an empty key is ignored. Hints only: TXT is
/// unauthenticated, so nothing here decides where to dial or what to pin.
public struct GatewayTXTRecord: Sendable, Hashable {
    /// Every pair, keys lowercased (`nil` value: attribute without `=`).
    public let pairs: [String: String?]

    /// Decodes the TXT strings (`key=value` each).
    public init(strings: [String]) {
        var pairs: [String: String?] = [:]
        for string in strings {
            let key: Substring
            let value: String?
            if let equals = string.firstIndex(of: "=") {
                key = string[..<equals]
                value = String(string[string.index(after: equals)...])
            } else {
                key = Substring(string)
                value = nil
            }
            let lowered = key.lowercased()
            guard !lowered.isEmpty, pairs[lowered] == nil else { continue }
            pairs[lowered] = .some(value)
        }
        self.pairs = pairs
    }

    /// The value of `key` (case-insensitive); nil when absent or a bare attribute.
    public subscript(key: String) -> String? {
        pairs[key.lowercased()] ?? nil
    }

    /// `role`.
    public var role: String? { self["role"] }
    /// `transport`.
    public var transport: String? { self["transport"] }
    /// `displayName`.
    public var displayName: String? { self["displayName"] }
    /// `lanHost` (a hint; never dialled).
    public var lanHost: String? { self["lanHost"] }
    /// `gatewayPort` (a hint; never dialled).
    public var gatewayPort: Int? {
        self["gatewayPort"].flatMap { Int($0) }.flatMap { (1...65535).contains($0) ? $0 : nil }
    }
    /// `tailnetDns`.
    public var tailnetDns: String? { self["tailnetDns"] }
    /// `sshPort`.
    public var sshPort: Int? { self["sshPort"].flatMap { Int($0) } }
    /// `cliPath`.
    public var cliPath: String? { self["cliPath"] }
    /// `canvasPort`.
    public var canvasPort: Int? { self["canvasPort"].flatMap { Int($0) } }

    /// `gatewayTlsSha256`, when it is a well-formed fingerprint (advertised, unauthenticated).
    public var advertisedFingerprint: TLSFingerprint? {
        self["gatewayTlsSha256"].flatMap { TLSFingerprint($0) }
    }

    /// The gateway says it speaks TLS only: `gatewayTls=1` (or `true`), or a fingerprint.
    public var usesTLS: Bool {
        let flag = self["gatewayTls"]?.lowercased()
        return flag == "1" || flag == "true" || advertisedFingerprint != nil
    }
}
