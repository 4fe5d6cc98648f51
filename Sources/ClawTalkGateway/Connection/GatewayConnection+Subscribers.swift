public import ClawTalkProtocol
import ClawTalkSupport

extension GatewayConnection {
    /// One subscriber's stream and filter.
    enum Subscriber: Sendable {
        case connection(names: Set<String>?, AsyncStream<ConnectionEvent>.Continuation)
        case frames(names: Set<String>?, AsyncStream<EventFrame>.Continuation)

        func finish() {
            switch self {
            case .connection(_, let continuation): continuation.finish()
            case .frames(_, let continuation): continuation.finish()
            }
        }
    }

    /// Largest backlog per subscriber; older events are dropped for a subscriber that lags.
    static let subscriberBuffer = 1024

    /// Lifecycle and events in socket order: `connected` (delivered at once when already
    /// connected), the socket's events named in `names` (nil: all), then `disconnected`.
    public func subscribe(events names: Set<String>? = nil) -> AsyncStream<ConnectionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ConnectionEvent.self, bufferingPolicy: .bufferingNewest(Self.subscriberBuffer))
        let id = nextId()
        subscribers[id] = .connection(names: names, continuation)
        if let link { continuation.yield(.connected(epoch: link.epoch, hello: link.hello)) }
        if ended { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        return stream
    }

    /// Gateway events named in `names` (nil: all but `connect.challenge` and `tick`), from
    /// every socket of this connection.
    public func events(named names: Set<String>? = nil) -> AsyncStream<EventFrame> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: EventFrame.self, bufferingPolicy: .bufferingNewest(Self.subscriberBuffer))
        let id = nextId()
        subscribers[id] = .frames(names: names, continuation)
        if ended { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        return stream
    }

    private func removeSubscriber(_ id: Int) {
        subscribers[id] = nil
    }

    /// Delivers `event` to every subscriber whose filter admits it (filtered before buffering).
    func broadcast(_ event: ConnectionEvent) {
        var dropped = 0
        for subscriber in subscribers.values {
            switch (subscriber, event) {
            case (.connection(let names, let continuation), .event(_, let frame)):
                guard names?.contains(frame.event) ?? true else { continue }
                if case .dropped = continuation.yield(event) { dropped += 1 }
            case (.connection(_, let continuation), _):
                if case .dropped = continuation.yield(event) { dropped += 1 }
            case (.frames(let names, let continuation), .event(_, let frame)):
                guard names?.contains(frame.event) ?? true else { continue }
                if case .dropped = continuation.yield(frame) { dropped += 1 }
            case (.frames, _):
                continue
            }
        }
        if dropped > 0 {
            logger.throttled(key: "subscriber.dropped", every: .seconds(10))
                .warning("gateway.subscriber.dropped", ["count": .int(dropped)])
        }
    }
}
