/// `ConnectParams.auth` (protocol.md §7.2, §7.4): clawtalk sends exactly one credential.
/// Empty strings are treated as absent, so what is signed always equals what is sent.
/// Deliberately not `CustomStringConvertible`: it holds secrets.
public struct ConnectAuth: Sendable, Hashable, Codable {
    /// Shared gateway token.
    public let token: String?
    /// Setup-code bootstrap token.
    public let bootstrapToken: String?
    /// Stored per-role device token.
    public let deviceToken: String?
    /// Shared gateway password (never signed).
    public let password: String?

    /// Credentials with empty strings dropped.
    public init(
        token: String? = nil, bootstrapToken: String? = nil, deviceToken: String? = nil, password: String? = nil
    ) {
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.bootstrapToken = bootstrapToken.flatMap { $0.isEmpty ? nil : $0 }
        self.deviceToken = deviceToken.flatMap { $0.isEmpty ? nil : $0 }
        self.password = password.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `{token}`.
    public static func token(_ value: String) -> ConnectAuth { ConnectAuth(token: value) }
    /// `{bootstrapToken}`.
    public static func bootstrapToken(_ value: String) -> ConnectAuth { ConnectAuth(bootstrapToken: value) }
    /// `{deviceToken}`.
    public static func deviceToken(_ value: String) -> ConnectAuth { ConnectAuth(deviceToken: value) }
    /// `{password}`.
    public static func password(_ value: String) -> ConnectAuth { ConnectAuth(password: value) }

    /// No credential set (then `auth` is omitted).
    public var isEmpty: Bool {
        token == nil && bootstrapToken == nil && deviceToken == nil && password == nil
    }

    /// The signed token field: `token ?? deviceToken ?? bootstrapToken ?? ""`
    /// (protocol.md §6.2; the password is never signed).
    public var signedToken: String {
        token ?? deviceToken ?? bootstrapToken ?? ""
    }

    /// Reads the closed set of keys, dropping empty strings as the initializer does.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            token: try container.decodeIfPresent(String.self, forKey: .token),
            bootstrapToken: try container.decodeIfPresent(String.self, forKey: .bootstrapToken),
            deviceToken: try container.decodeIfPresent(String.self, forKey: .deviceToken),
            password: try container.decodeIfPresent(String.self, forKey: .password))
    }
}
