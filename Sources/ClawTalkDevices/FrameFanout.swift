import ClawTalkSupport
import Synchronization

/// Hands every published element to each subscribed `AsyncStream`, each buffering the newest
/// `limit` elements and counting what a slow subscriber loses. Subscribing after ``close()``
/// gives a finished stream.
final class FrameFanout<Element: Sendable>: Sendable {
    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
        var closed = false
    }

    private let subscribers = Mutex<Subscribers>(Subscribers())
    private let dropCount = Atomic<Int>(0)

    /// Elements dropped because a subscriber's buffer was full.
    var drops: Int { dropCount.load(ordering: .relaxed) }

    /// A new stream buffering the newest `limit` (at least 1) elements.
    func subscribe(bufferingNewest limit: Int) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: .bufferingNewest(max(limit, 1)))
        let id: Int? = subscribers.locked { subscribers in
            guard !subscribers.closed else { return nil }
            let id = subscribers.next
            subscribers.next += 1
            subscribers.continuations[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        // Set after registering and called outside the lock (finish() may invoke it at once).
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.locked { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Yields `element` to every open stream.
    func publish(_ element: Element) {
        let targets = subscribers.locked { $0.closed ? [] : Array($0.continuations.values) }
        for continuation in targets {
            if case .dropped = continuation.yield(element) {
                dropCount.wrappingAdd(1, ordering: .relaxed)
            }
        }
    }

    /// Finishes every stream; later subscriptions get finished streams.
    func close() {
        let targets = subscribers.locked { subscribers in
            subscribers.closed = true
            defer { subscribers.continuations.removeAll() }
            return Array(subscribers.continuations.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
