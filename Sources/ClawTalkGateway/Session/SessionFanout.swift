import ClawTalkProtocol
import ClawTalkSupport

/// A session's own subscribers (``NodeSession/subscribe(events:)``,
/// ``OperatorSession/subscribe(events:)``): the connection's lifecycle and events, handed on
/// only after the session has handled each one. A subscriber that sees `connected` therefore
/// finds the session ready (its `hello-ok` applied, `isConnected` true) without polling, and
/// nobody outside the session needs its connection.
final class SessionFanout: Sendable {
    /// Largest backlog per subscriber, as for the connection's own subscribers.
    static let buffer = GatewayConnection.subscriberBuffer

    /// Keeps the `connected` of the socket the session is ready on, until that socket's
    /// `disconnected`.
    private let events = EventBroadcast<ConnectionEvent>(bufferingNewest: SessionFanout.buffer) { live, event in
        switch event {
        case .connected: event
        case .disconnected(let epoch, _):
            if case .connected(let liveEpoch, _) = live, liveEpoch == epoch { nil } else { live }
        case .event: live
        }
    }

    /// A new subscriber of the events named in `names` (nil: all) with lifecycle; `connected`
    /// comes at once when the session is ready. A stream that ends (its reader cancelled) is
    /// forgotten; after ``finish(reason:)`` a new one ends at once.
    func subscribe(names: Set<String>?) -> AsyncStream<ConnectionEvent> {
        events.subscribe(replayingKept: true, where: ConnectionEvent.filter(names: names))
    }

    /// The session (re)starts: subscribers may stay open again.
    func start() {
        events.reopen()
    }

    /// Hands `event` (already handled by the session) to every subscriber that asked for it.
    func forward(_ event: ConnectionEvent) {
        events.publish(event)
    }

    /// The session stopped: a socket still live is reported gone, and every stream ends.
    func finish(reason: String) {
        if case .connected(let epoch, _) = events.kept { forward(.disconnected(epoch: epoch, reason: reason)) }
        events.finish()
    }
}
