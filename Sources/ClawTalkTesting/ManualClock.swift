import ClawTalkSupport
import Synchronization

/// A clock that moves only when the test advances it; sleepers wake in deadline order.
///
/// For components that take `any Clock<Duration>`: their timers fire exactly when the test says
/// so, which makes "before the deadline" and "after the deadline" deterministic on a busy machine.
public final class ManualClock: Clock, Sendable {
    /// A point on the manual time line: an offset from the clock's creation.
    public struct Instant: InstantProtocol {
        /// Time since the clock was created.
        public var offset: Duration

        /// An instant at `offset` from the start.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// This instant moved by `duration`.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Earlier first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    /// A wait in ``waitForSleeper(until:)`` that was not satisfied within 30 s of real time.
    public struct WaitTimedOut: Error, CustomStringConvertible {
        /// What was waited for and what was there.
        public let description: String
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var next = 0
    }

    private let state = Mutex(State())

    /// A clock at offset zero.
    public init() {}

    /// The current manual time.
    public var now: Instant { state.locked { $0.now } }
    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends until the test advances the clock to `deadline` (or past it); throws on cancellation.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.locked { state in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let due = state.locked { state -> Bool in
                    if deadline <= state.now { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if due {
                    continuation.resume()
                } else if Task.isCancelled {
                    remove(id)?.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            remove(id)?.resume(throwing: CancellationError())
        }
    }

    private func remove(_ id: Int) -> CheckedContinuation<Void, any Error>? {
        state.locked { state in
            guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.sleepers.remove(at: index).continuation
        }
    }

    /// Moves time forward and wakes every sleeper that is due.
    public func advance(by duration: Duration) {
        let due = state.locked { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Deadlines of the current sleepers, as offsets from the start.
    public var sleeperDeadlines: [Duration] { state.locked { $0.sleepers.map(\.deadline.offset) } }

    /// Waits (real time, up to 30 s) until someone sleeps until `offset` from the start.
    /// - Throws: ``WaitTimedOut``.
    public func waitForSleeper(until offset: Duration) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !sleeperDeadlines.contains(offset) {
            guard ContinuousClock.now < deadline else {
                throw WaitTimedOut(description: "no sleeper until \(offset); sleepers: \(sleeperDeadlines)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Waits (real time, up to 30 s) until someone sleeps until `duration` from now, then moves
    /// time forward by `duration`: that sleeper wakes, with every sleeper due before it.
    ///
    /// For "the component will wait `duration`; let it run out" when the test is the only one
    /// that advances the clock (so "now" does not move while waiting).
    /// - Throws: ``WaitTimedOut``.
    public func advanceToSleeper(in duration: Duration) async throws {
        try await waitForSleeper(until: now.offset + duration)
        advance(by: duration)
    }
}
