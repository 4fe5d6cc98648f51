/// Every credential the connection could send right now; ``CredentialSelector`` picks one.
/// Empty strings count as absent. Deliberately not `CustomStringConvertible`: holds secrets.
public struct AvailableCredentials: Sendable, Hashable {
    /// Setup-code bootstrap token pending since the last successful connect (node role only).
    public var bootstrapToken: String?
    /// Stored device token for (gateway key, deviceId, role).
    public var deviceToken: String?
    /// Configured shared token.
    public var sharedToken: String?
    /// Configured shared password.
    public var password: String?

    /// Credentials with the given values; empty strings are dropped.
    public init(
        bootstrapToken: String? = nil, deviceToken: String? = nil, sharedToken: String? = nil, password: String? = nil
    ) {
        self.bootstrapToken = bootstrapToken.flatMap { $0.isEmpty ? nil : $0 }
        self.deviceToken = deviceToken.flatMap { $0.isEmpty ? nil : $0 }
        self.sharedToken = sharedToken.flatMap { $0.isEmpty ? nil : $0 }
        self.password = password.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The kinds present (never contains ``CredentialKind/none``).
    public var kinds: Set<CredentialKind> {
        var kinds: Set<CredentialKind> = []
        if bootstrapToken != nil { kinds.insert(.bootstrapToken) }
        if deviceToken != nil { kinds.insert(.deviceToken) }
        if sharedToken != nil { kinds.insert(.sharedToken) }
        if password != nil { kinds.insert(.password) }
        return kinds
    }
}
