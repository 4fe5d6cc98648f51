/// Work a long-lived component starts from a callback (a signal handler, a delegate) that runs
/// as a child of the component's own task rather than as a loose `Task`: ``spawn(_:)`` queues it
/// from any context, and ``run()``, awaited once in the component's `run()`, starts each queued
/// piece as a child task until the calling task is cancelled, then waits for the children (which
/// are cancelled with it). Work spawned after that is dropped.
public final class ChildTaskQueue: Sendable {
    /// One piece of work.
    public typealias Work = @Sendable () async -> Void

    private let work: AsyncStream<Work>
    private let input: AsyncStream<Work>.Continuation

    /// An empty queue; nothing runs until ``run()``.
    public init() {
        (work, input) = AsyncStream.makeStream(of: Work.self, bufferingPolicy: .unbounded)
    }

    /// Queues `work` to start as a child of ``run()`` (at once when it is running); dropped
    /// once ``run()`` has ended.
    public func spawn(_ work: @escaping Work) {
        input.yield(work)
    }

    /// Takes no more work: ``run()`` returns once the children running now have ended (they are
    /// not cancelled). Work spawned later is dropped.
    public func finish() {
        input.finish()
    }

    /// Starts the queued work, and what is spawned later, as child tasks until the calling task
    /// is cancelled; returns when every child has ended. Call it once.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await work in self.work {
                group.addTask(operation: work)
            }
        }
        input.finish()
    }
}
