/// A setup-code bootstrap token saved by `clawtalk pair` and sent by the next node connect,
/// then deleted after `hello-ok` (protocol.md §7.4, §9). Not `CustomStringConvertible`.
struct PendingBootstrap: Sendable, Hashable, Codable {
    /// The token.
    var token: String
    /// When it was saved, milliseconds.
    var savedAtMs: Int64
    /// The setup code's `expiresAtMs`, when it had one.
    var expiresAtMs: Int64?
}
