/// The string a device signs in `connect` (protocol.md §6.2): fields joined by `|`,
/// no escaping, no trailing newline.
///
/// Pure value: it does not trim the nonce (the connection trims the challenge nonce once and
/// passes the same string here and in `device.nonce`). It is deliberately not
/// `CustomStringConvertible`, because ``string`` contains the auth token.
public struct DeviceAuthPayload: Sendable, Hashable {
    /// Layout to build.
    public var version: DeviceAuthVersion
    /// `device.id`.
    public var deviceId: String
    /// `client.id`, exactly as sent.
    public var clientId: String
    /// `client.mode`, exactly as sent.
    public var clientMode: String
    /// `role`, exactly as sent.
    public var role: String
    /// `scopes`, in sent order (no sorting or deduplication).
    public var scopes: [String]
    /// `device.signedAt`, milliseconds.
    public var signedAtMs: Int64
    /// The token field after `??` selection (see ``signedToken(token:deviceToken:bootstrapToken:)``).
    public var token: String
    /// `device.nonce`, exactly as sent.
    public var nonce: String
    /// `client.platform` as sent (normalized only inside the v3 string); nil when not sent.
    public var platform: String?
    /// `client.deviceFamily` as sent (normalized only inside the v3 string); nil when not sent.
    public var deviceFamily: String?

    /// Builds a payload from the connect fields; the three credentials are the ones in `auth`
    /// (`auth.password` is never signed).
    public init(
        version: DeviceAuthVersion, deviceId: String, clientId: String, clientMode: String,
        role: String, scopes: [String], signedAtMs: Int64, token: String? = nil,
        deviceToken: String? = nil, bootstrapToken: String? = nil, nonce: String,
        platform: String? = nil, deviceFamily: String? = nil
    ) {
        self.version = version
        self.deviceId = deviceId
        self.clientId = clientId
        self.clientMode = clientMode
        self.role = role
        self.scopes = scopes
        self.signedAtMs = signedAtMs
        self.token = Self.signedToken(token: token, deviceToken: deviceToken, bootstrapToken: bootstrapToken)
        self.nonce = nonce
        self.platform = platform
        self.deviceFamily = deviceFamily
    }

    /// The payload string to sign.
    public var string: String {
        var fields = [
            version.rawValue, deviceId, clientId, clientMode, role, scopes.joined(separator: ","),
            String(signedAtMs), token, nonce,
        ]
        if version == .v3 {
            fields.append(Self.normalizeMetadata(platform))
            fields.append(Self.normalizeMetadata(deviceFamily))
        }
        return fields.joined(separator: "|")
    }

    /// `auth.token ?? auth.deviceToken ?? auth.bootstrapToken ?? ""` with JavaScript `??`
    /// semantics: only nil falls through, an empty string is a present value.
    public static func signedToken(token: String?, deviceToken: String?, bootstrapToken: String?) -> String {
        token ?? deviceToken ?? bootstrapToken ?? ""
    }

    /// `platformNorm`/`deviceFamilyNorm`: JavaScript `trim()`, then ASCII-only lowercase
    /// (A–Z → a–z, nothing else folded); nil → `""`.
    public static func normalizeMetadata(_ value: String?) -> String {
        guard let value else { return "" }
        let scalars = Array(value.unicodeScalars)
        guard let first = scalars.firstIndex(where: { !isJavaScriptWhitespace($0) }),
            let last = scalars.lastIndex(where: { !isJavaScriptWhitespace($0) })
        else { return "" }
        var out = String.UnicodeScalarView()
        for scalar in scalars[first...last] {
            if (0x41...0x5A).contains(scalar.value), let lower = Unicode.Scalar(scalar.value + 0x20) {
                out.append(lower)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// ECMAScript WhiteSpace and LineTerminator: what `String.prototype.trim` removes.
    private static func isJavaScriptWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F,
            0x3000, 0xFEFF:
            true
        default:
            false
        }
    }
}
