/// Who may use the control socket: the user running the service, nobody else (not even root,
/// which could use the user's own tools instead). The socket file is 0600 in a 0700 directory;
/// this check of the peer's credentials (`SO_PEERCRED`) holds even if those modes are loosened.
public enum ControlPeerPolicy {
    /// Whether a peer with `peerUID` (nil: credentials unavailable) may send commands to a
    /// service owned by `ownerUID`.
    public static func allows(peerUID: UInt32?, ownerUID: UInt32) -> Bool {
        guard let peerUID else { return false }
        return peerUID == ownerUID
    }

    /// The refusal sent to other users.
    public static func refusal(ownerUID: UInt32) -> String {
        "PERMISSION_DENIED: the control socket belongs to uid \(ownerUID)"
    }
}
