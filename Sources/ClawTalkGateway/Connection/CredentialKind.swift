/// Which credential a `connect` carried (protocol.md §7.4), in precedence order.
public enum CredentialKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `{bootstrapToken}` from a setup code supplied since the last successful connect.
    case bootstrapToken
    /// `{deviceToken}` stored for (gateway key, deviceId, role).
    case deviceToken
    /// `{token}`: the configured shared token.
    case sharedToken
    /// `{password}`: the configured shared password.
    case password
    /// No `auth` at all.
    case none

    /// The raw name.
    public var description: String { rawValue }
}
