public import ClawTalkProtocol

/// A session's own subscribers (``NodeSession/subscribe(events:)``,
/// ``OperatorSession/subscribe(events:)``): the connection's lifecycle and events, handed on
/// only after the session has handled each one. A subscriber that sees `connected` therefore
/// finds the session ready (its `hello-ok` applied, `isConnected` true) without polling, and
/// nobody outside the session needs its connection.
struct SessionFanout {
    private struct Subscriber {
        var names: Set<String>?
        var continuation: AsyncStream<ConnectionEvent>.Continuation
    }

    /// Largest backlog per subscriber, as for the connection's own subscribers.
    static let buffer = GatewayConnection.subscriberBuffer

    private var subscribers: [Int: Subscriber] = [:]
    private var nextId = 0
    /// The socket the session is ready on, with its `hello-ok`.
    private var live: (epoch: Int, hello: HelloOk)?
    private var ended = false

    /// A new subscriber of the events named in `names` (nil: all) with lifecycle; `connected`
    /// comes at once when the session is ready. Returns its id (for ``remove(_:)``), its
    /// stream, and the stream's continuation (for its termination handler).
    mutating func add(
        names: Set<String>?
    ) -> (id: Int, stream: AsyncStream<ConnectionEvent>, continuation: AsyncStream<ConnectionEvent>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ConnectionEvent.self, bufferingPolicy: .bufferingNewest(Self.buffer))
        nextId += 1
        if let live { continuation.yield(.connected(epoch: live.epoch, hello: live.hello)) }
        if ended {
            continuation.finish()
        } else {
            subscribers[nextId] = Subscriber(names: names, continuation: continuation)
        }
        return (nextId, stream, continuation)
    }

    /// The session (re)starts: subscribers may stay open again.
    mutating func start() {
        ended = false
    }

    /// Forgets a subscriber whose stream ended.
    mutating func remove(_ id: Int) {
        subscribers[id] = nil
    }

    /// Hands `event` (already handled by the session) to every subscriber that asked for it.
    mutating func forward(_ event: ConnectionEvent) {
        switch event {
        case .connected(let epoch, let hello): live = (epoch, hello)
        case .disconnected(let epoch, _): if live?.epoch == epoch { live = nil }
        case .event: break
        }
        for subscriber in subscribers.values {
            if case .event(_, let frame) = event, !(subscriber.names?.contains(frame.event) ?? true) { continue }
            subscriber.continuation.yield(event)
        }
    }

    /// The session stopped: a socket still live is reported gone, and every stream ends.
    mutating func finish(reason: String) {
        if let live { forward(.disconnected(epoch: live.epoch, reason: reason)) }
        ended = true
        for subscriber in subscribers.values { subscriber.continuation.finish() }
        subscribers = [:]
    }
}
