/// The only methods clawtalk's node connection calls (protocol.md §10.1).
public enum NodeMethod: String, Sendable, Hashable, CaseIterable {
    /// Answer an invoke.
    case invokeResult = "node.invoke.result"
    /// Send a node event.
    case event = "node.event"
}
