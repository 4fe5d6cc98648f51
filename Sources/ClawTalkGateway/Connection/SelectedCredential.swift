public import ClawTalkProtocol

/// The one credential a `connect` carries, and which kind it is.
public struct SelectedCredential: Sendable, Hashable {
    /// Which credential was chosen.
    public let kind: CredentialKind
    /// The `auth` object to send; nil for ``CredentialKind/none`` (then `auth` is omitted).
    public let auth: ConnectAuth?

    /// A selection of `kind` carrying `auth`.
    init(kind: CredentialKind, auth: ConnectAuth?) {
        self.kind = kind
        self.auth = auth
    }
}
