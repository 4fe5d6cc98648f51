/// The child tasks of a long-lived component driven by calls rather than by a `run()` of its
/// own (an actor such as Talk mode's controller): work a method starts (a transcription, a
/// delivery, a chime) runs as a child of one task group instead of as a loose `Task`. The group
/// is a ``ChildTaskQueue`` served by one task this value owns; ``spawn(_:)`` never suspends, so
/// an actor starts work in the same step as the decision that asks for it.
///
/// Releasing the value takes no more work and lets the running children end, as loose tasks
/// would; ``cancelAll()`` cancels them.
public final class OwnedTaskGroup: Sendable {
    private let queue: ChildTaskQueue
    private let owner: Task<Void, Never>

    /// A group with its owner task started.
    public init() {
        let queue = ChildTaskQueue()
        self.queue = queue
        // The group's one unstructured task: held here, ended by deinit (finish) or cancelAll().
        owner = Task { await queue.run() }
    }

    deinit {
        queue.finish()
    }

    /// Starts `work` as a child of the group (dropped after ``cancelAll()``).
    public func spawn(_ work: @escaping ChildTaskQueue.Work) {
        queue.spawn(work)
    }

    /// Cancels the running children and drops work spawned later.
    public func cancelAll() {
        queue.finish()
        owner.cancel()
    }

    /// Takes no more work and returns once the children running now have ended (for tests and
    /// orderly shutdowns that must not leave work behind).
    public func finished() async {
        queue.finish()
        await owner.value
    }
}
