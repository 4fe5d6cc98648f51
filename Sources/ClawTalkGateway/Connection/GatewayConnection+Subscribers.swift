public import ClawTalkProtocol
import ClawTalkSupport

extension GatewayConnection {
    /// Largest backlog per subscriber; older events are dropped for a subscriber that lags.
    static let subscriberBuffer = 1024

    /// Lifecycle and events in socket order: `connected` (delivered at once when already
    /// connected), the socket's events named in `names` (nil: all), then `disconnected`.
    public func subscribe(events names: Set<String>? = nil) -> AsyncStream<ConnectionEvent> {
        let first: ConnectionEvent? = link.map { .connected(epoch: $0.epoch, hello: $0.hello) }
        return connectionEvents.subscribe(startingWith: first, where: ConnectionEvent.filter(names: names))
    }

    /// Gateway events named in `names` (nil: all but `connect.challenge` and `tick`), from
    /// every socket of this connection.
    public func events(named names: Set<String>? = nil) -> AsyncStream<EventFrame> {
        guard let names else { return eventFrames.subscribe() }
        return eventFrames.subscribe(where: { frame in names.contains(frame.event) })
    }

    /// Delivers `event` to every subscriber whose filter admits it (filtered before buffering).
    func broadcast(_ event: ConnectionEvent) {
        var dropped = connectionEvents.publish(event)
        if case .event(_, let frame) = event { dropped += eventFrames.publish(frame) }
        if dropped > 0 {
            logger.throttled(key: "subscriber.dropped", every: .seconds(10))
                .warning("gateway.subscriber.dropped", ["count": .int(dropped)])
        }
    }
}

extension ConnectionEvent {
    /// A subscriber's filter: the lifecycle always, events only when named in `names` (nil: no
    /// filter, everything).
    static func filter(names: Set<String>?) -> EventBroadcast<ConnectionEvent>.Filter? {
        guard let names else { return nil }
        return { event in
            guard case .event(_, let frame) = event else { return true }
            return names.contains(frame.event)
        }
    }
}
