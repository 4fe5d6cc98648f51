import Synchronization

/// The newest value of something that changes (a trigger list, a routing config), handed to
/// any number of subscribers as it changes. Each subscriber keeps only the newest value it has
/// not read yet; a subscriber can start with the current value. Safe from any thread.
public final class LatestValueBroadcast<Value: Sendable>: Sendable {
    private struct State {
        var latest: Value?
        var subscribers: [Int: AsyncStream<Value>.Continuation] = [:]
        var nextId = 0
    }

    private let state = Mutex(State())

    /// A broadcast with no value yet.
    public init() {}

    /// The last value published, if any.
    public var latest: Value? { state.locked { $0.latest } }

    /// Values published from now on; with `replayingLatest`, the current value first.
    public func subscribe(replayingLatest: Bool) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.locked { state in
            state.nextId += 1
            state.subscribers[state.nextId] = continuation
            if replayingLatest, let latest = state.latest { continuation.yield(latest) }
            return state.nextId
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.locked { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Makes `value` the latest and hands it to every subscriber.
    public func publish(_ value: Value) {
        let subscribers = state.locked { state in
            state.latest = value
            return Array(state.subscribers.values)
        }
        for continuation in subscribers { continuation.yield(value) }
    }
}
