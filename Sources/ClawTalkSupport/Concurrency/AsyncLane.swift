import Synchronization

/// Runs async work one item at a time, in the order it was queued: the side effects of a state
/// machine, which must not overtake each other (a release never before the acquisition it
/// ends). One worker task owned by the lane reads the queue; queuing never suspends, so an actor
/// can queue its effects in the same step as the decision. ``SerialLane`` is the other lane:
/// blocking work on a thread, away from the cooperative pool.
///
/// Work already queued still runs after the lane is released (its worker drains the queue, then
/// ends); nothing is dropped.
public final class AsyncLane: Sendable {
    private enum Item: Sendable {
        case work(@Sendable () async -> Void)
        case marker(CheckedContinuation<Void, Never>)
    }

    /// Items queued and not yet taken by the worker (shared with it).
    private final class Backlog: Sendable {
        let count = Atomic<Int>(0)
    }

    private let queue: AsyncStream<Item>.Continuation
    private let backlog = Backlog()

    /// A lane with its worker started.
    public init() {
        let (items, queue) = AsyncStream<Item>.makeStream()
        self.queue = queue
        let backlog = backlog
        // The lane's one unstructured task: its worker, which ends when the lane is released.
        Task {
            for await item in items {
                backlog.count.subtract(1, ordering: .sequentiallyConsistent)
                switch item {
                case .work(let work): await work()
                case .marker(let reached): reached.resume()
                }
            }
        }
    }

    deinit {
        queue.finish()
    }

    /// Queues `work` behind everything queued before it.
    public func enqueue(_ work: @escaping @Sendable () async -> Void) {
        backlog.count.add(1, ordering: .sequentiallyConsistent)
        queue.yield(.work(work))
    }

    /// Items queued that the worker has not started yet (tests: the barrier that a call queued
    /// its work).
    var queuedCount: Int { backlog.count.load(ordering: .sequentiallyConsistent) }

    /// Runs `work` behind everything queued before it and returns its result: a critical
    /// section of an actor whose steps suspend (the actor's other calls go on meanwhile, and
    /// queue their own sections behind this one). Work run on the lane must not wait for a
    /// later `run` on the same lane: that never comes.
    public func run<Result: Sendable>(_ work: @escaping @Sendable () async -> Result) async -> Result {
        await withCheckedContinuation { (done: CheckedContinuation<Result, Never>) in
            enqueue { done.resume(returning: await work()) }
        }
    }

    /// Returns once everything queued before this call has run (work that it queues in turn
    /// is not waited for).
    public func drained() async {
        await withCheckedContinuation { (reached: CheckedContinuation<Void, Never>) in
            backlog.count.add(1, ordering: .sequentiallyConsistent)
            if case .terminated = queue.yield(.marker(reached)) {
                backlog.count.subtract(1, ordering: .sequentiallyConsistent)
                reached.resume()
            }
        }
    }
}
