public import ClawTalkProtocol

/// What a subscriber of a ``GatewayConnection`` sees, in order: each socket's `connected`,
/// its events, then its `disconnected`. `epoch` identifies the socket; work that outlives a
/// socket (invoke results) is tagged with it and dropped when it no longer matches.
public enum ConnectionEvent: Sendable {
    /// `hello-ok` arrived on socket `epoch`.
    case connected(epoch: Int, hello: HelloOk)
    /// A gateway event on socket `epoch` (never `connect.challenge` or `tick`).
    case event(epoch: Int, EventFrame)
    /// Socket `epoch` ended after having been connected.
    case disconnected(epoch: Int, reason: String)
}
