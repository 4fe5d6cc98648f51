import ClawTalkProtocol
import ClawTalkSupport
import Synchronization

/// A session's own subscribers (``NodeSession/subscribe(events:)``,
/// ``OperatorSession/subscribe(events:)``): the connection's lifecycle and events, handed on
/// only after the session has handled each one. A subscriber that sees `connected` therefore
/// finds the session ready (its `hello-ok` applied, `isConnected` true) without polling, and
/// nobody outside the session needs its connection.
final class SessionFanout: Sendable {
    private struct Subscriber {
        var names: Set<String>?
        var continuation: AsyncStream<ConnectionEvent>.Continuation
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextId = 0
        /// The socket the session is ready on, with its `hello-ok`.
        var live: (epoch: Int, hello: HelloOk)?
        var ended = false
    }

    /// Largest backlog per subscriber, as for the connection's own subscribers.
    static let buffer = GatewayConnection.subscriberBuffer

    private let state = Mutex(State())

    /// A new subscriber of the events named in `names` (nil: all) with lifecycle; `connected`
    /// comes at once when the session is ready. A stream that ends (its reader cancelled) is
    /// forgotten; after ``finish(reason:)`` a new one ends at once.
    func subscribe(names: Set<String>?) -> AsyncStream<ConnectionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ConnectionEvent.self, bufferingPolicy: .bufferingNewest(Self.buffer))
        let (id, ended) = state.locked { state in
            state.nextId += 1
            if let live = state.live { continuation.yield(.connected(epoch: live.epoch, hello: live.hello)) }
            if !state.ended {
                state.subscribers[state.nextId] = Subscriber(names: names, continuation: continuation)
            }
            return (state.nextId, state.ended)
        }
        if ended {
            continuation.finish()
        } else {
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.locked { $0.subscribers.removeValue(forKey: id) }
            }
        }
        return stream
    }

    /// The session (re)starts: subscribers may stay open again.
    func start() {
        state.locked { $0.ended = false }
    }

    /// Hands `event` (already handled by the session) to every subscriber that asked for it.
    func forward(_ event: ConnectionEvent) {
        let receivers = state.locked { state in
            switch event {
            case .connected(let epoch, let hello): state.live = (epoch, hello)
            case .disconnected(let epoch, _): if state.live?.epoch == epoch { state.live = nil }
            case .event: break
            }
            return state.subscribers.values.filter { subscriber in
                guard case .event(_, let frame) = event else { return true }
                return subscriber.names?.contains(frame.event) ?? true
            }
        }
        for receiver in receivers { receiver.continuation.yield(event) }
    }

    /// The session stopped: a socket still live is reported gone, and every stream ends.
    func finish(reason: String) {
        if let live = state.locked({ $0.live }) { forward(.disconnected(epoch: live.epoch, reason: reason)) }
        // Finished outside the lock: a stream's termination handler takes it.
        let ending = state.locked { state in
            state.ended = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in ending { subscriber.continuation.finish() }
    }
}
