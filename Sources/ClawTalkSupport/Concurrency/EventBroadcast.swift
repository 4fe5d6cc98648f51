import Synchronization

/// Hands every published element to each subscribed `AsyncStream`: the one fan-out of the
/// project (an actor's events, a connection's lifecycle, the capture thread's frames).
///
/// - Each subscriber buffers the newest `limit` elements it has not read (the broadcast's limit
///   unless it asks for its own); what a slow reader loses is counted in ``drops``.
/// - A subscriber may take only the elements its filter admits, and may start with an element
///   of its own (an actor's current state) or with the one the broadcast keeps (see `keeping`).
/// - A stream whose reader stops (its task cancelled, the stream dropped) is forgotten at once.
/// - ``finish()`` ends every stream; a subscription after it gets its first element, if any,
///   and ends, until ``reopen()``.
///
/// Safe from any thread; `publish` never suspends (callers on the capture thread use it). Order
/// is kept per publisher: an actor that publishes from its own isolation delivers in order.
public final class EventBroadcast<Element: Sendable>: Sendable {
    /// Which element the broadcast keeps for new subscribers, from the one it kept and the one
    /// just published (`{ _, new in new }`: the latest; nil: none).
    public typealias Keeping = @Sendable (_ kept: Element?, _ published: Element) -> Element?
    /// A subscriber's filter: true for the elements it takes.
    public typealias Filter = @Sendable (Element) -> Bool

    private struct Subscriber {
        var continuation: AsyncStream<Element>.Continuation
        var filter: Filter?
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextId = 0
        var kept: Element?
        var finished = false
    }

    private let state = Mutex(State())
    private let dropCount = Atomic<Int>(0)
    private let limit: Int
    private let keeping: Keeping?

    /// A broadcast whose subscribers each buffer the newest `limit` (at least 1) elements;
    /// with `keeping`, it keeps an element for subscribers that ask to start with it.
    public init(bufferingNewest limit: Int, keeping: Keeping? = nil) {
        self.limit = max(limit, 1)
        self.keeping = keeping
    }

    /// The element kept for new subscribers (always nil without `keeping`).
    public var kept: Element? { state.locked { $0.kept } }

    /// Streams open now.
    public var subscriberCount: Int { state.locked { $0.subscribers.count } }

    /// Elements lost so far because a subscriber's buffer was full.
    public var drops: Int { dropCount.load(ordering: .relaxed) }

    /// A stream of the elements published from now on that `filter` admits (nil: all).
    /// - Parameters:
    ///   - first: handed to this subscriber before anything published later.
    ///   - replayingKept: hand it the kept element (if any and admitted) first, after `first`.
    ///   - limit: its own buffer (newest kept), instead of the broadcast's.
    public func subscribe(
        startingWith first: Element? = nil, replayingKept: Bool = false, bufferingNewest limit: Int? = nil,
        where filter: Filter? = nil
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: .bufferingNewest(max(limit ?? self.limit, 1)))
        let id: Int? = state.locked { state in
            if let first { continuation.yield(first) }
            if replayingKept, let kept = state.kept, filter?(kept) ?? true { continuation.yield(kept) }
            guard !state.finished else { return nil }
            state.nextId += 1
            state.subscribers[state.nextId] = Subscriber(continuation: continuation, filter: filter)
            return state.nextId
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        // Set after registering and called outside the lock (finish() may invoke it at once).
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.locked { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `element` to every open stream whose filter admits it (and keeps it, as `keeping`
    /// says); returns how many streams had to drop an element for it.
    @discardableResult
    public func publish(_ element: Element) -> Int {
        let targets = state.locked { state -> [AsyncStream<Element>.Continuation] in
            if let keeping { state.kept = keeping(state.kept, element) }
            return state.subscribers.values.compactMap { subscriber in
                subscriber.filter?(element) ?? true ? subscriber.continuation : nil
            }
        }
        var dropped = 0
        for continuation in targets {
            if case .dropped = continuation.yield(element) { dropped += 1 }
        }
        if dropped > 0 { dropCount.wrappingAdd(dropped, ordering: .relaxed) }
        return dropped
    }

    /// Ends every stream; later subscriptions end at once (after their first element) until
    /// ``reopen()``. The kept element stays.
    public func finish() {
        // Finished outside the lock: a stream's termination handler takes it.
        let ending = state.locked { state in
            state.finished = true
            defer { state.subscribers = [:] }
            return state.subscribers.values.map(\.continuation)
        }
        for continuation in ending { continuation.finish() }
    }

    /// Lets new subscriptions stay open again after ``finish()``.
    public func reopen() {
        state.locked { $0.finished = false }
    }
}
