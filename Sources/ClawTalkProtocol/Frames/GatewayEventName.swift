/// Event names clawtalk reads (protocol.md §10.6, talk.md §4–§6). Other names are
/// ignored; ``EventFrame/event`` keeps the raw string.
public enum GatewayEventName: String, Sendable, Hashable, CaseIterable {
    /// Handshake nonce, first frame on every socket.
    case connectChallenge = "connect.challenge"
    /// Liveness `{ts}` every `tickIntervalMs`.
    case tick
    /// Gateway health snapshot.
    case health
    /// Presence snapshot.
    case presence
    /// Gateway going down `{reason, restartExpectedMs?}`.
    case shutdown
    /// Work for the node.
    case nodeInvokeRequest = "node.invoke.request"
    /// Streaming input for an invoke (ignored).
    case nodeInvokeInput = "node.invoke.input"
    /// Cancel a running invoke `{invokeId, nodeId}`.
    case nodeInvokeCancel = "node.invoke.cancel"
    /// Global wake-word list `{triggers}`.
    case voiceWakeChanged = "voicewake.changed"
    /// Wake routing `{config}`.
    case voiceWakeRoutingChanged = "voicewake.routing.changed"
    /// Chat run progress for a session.
    case chat
    /// Agent run stream (operator only).
    case agent
    /// Talk mode toggle `{enabled, phase, ts}`.
    case talkMode = "talk.mode"
    /// Talk session events (captures, relay transcripts).
    case talkEvent = "talk.event"
    /// A capability-approval request was created.
    case nodePairRequested = "node.pair.requested"
    /// A capability-approval request was resolved.
    case nodePairResolved = "node.pair.resolved"
    /// A device-pairing request was created.
    case devicePairRequested = "device.pair.requested"
    /// A device-pairing request was resolved.
    case devicePairResolved = "device.pair.resolved"
}
