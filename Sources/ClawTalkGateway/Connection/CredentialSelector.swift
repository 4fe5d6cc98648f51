internal import ClawTalkProtocol

/// Picks exactly one credential for `connect` (protocol.md §7.4), first match wins:
/// a setup-code bootstrap token since the last successful connect, else the stored device
/// token for (gateway key, deviceId, role), else the shared token, else the shared password,
/// else none. Pure.
public enum CredentialSelector {
    /// Kinds in precedence order.
    public static let precedence: [CredentialKind] = [.bootstrapToken, .deviceToken, .sharedToken, .password]

    /// The credential to send.
    /// - Parameters:
    ///   - credentials: what is available.
    ///   - preferDeviceToken: the single retry after `AUTH_TOKEN_MISMATCH` with
    ///     `canRetryWithDeviceToken` (protocol.md §7.4): send the stored device token if there is one.
    public static func select(from credentials: AvailableCredentials, preferDeviceToken: Bool = false)
        -> SelectedCredential
    {
        if preferDeviceToken, let token = credentials.deviceToken {
            return SelectedCredential(kind: .deviceToken, auth: .deviceToken(token))
        }
        let kind = first(in: credentials.kinds)
        switch kind {
        case .bootstrapToken:
            return SelectedCredential(kind: kind, auth: credentials.bootstrapToken.map(ConnectAuth.bootstrapToken))
        case .deviceToken:
            return SelectedCredential(kind: kind, auth: credentials.deviceToken.map(ConnectAuth.deviceToken))
        case .sharedToken: return SelectedCredential(kind: kind, auth: credentials.sharedToken.map(ConnectAuth.token))
        case .password: return SelectedCredential(kind: kind, auth: credentials.password.map(ConnectAuth.password))
        case .none: return SelectedCredential(kind: .none, auth: nil)
        }
    }

    /// The first kind of ``precedence`` contained in `kinds`, else ``CredentialKind/none``.
    public static func first(in kinds: Set<CredentialKind>) -> CredentialKind {
        precedence.first(where: kinds.contains) ?? .none
    }
}
