import Synchronization

/// A clock that moves only when the test advances it; sleepers wake in deadline order.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
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

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let due = state.withLock { state -> Bool in
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
        state.withLock { state in
            guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.sleepers.remove(at: index).continuation
        }
    }

    /// Moves time forward and wakes every sleeper that is due.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Deadlines of the current sleepers, as offsets from the start.
    var sleeperDeadlines: [Duration] { state.withLock { $0.sleepers.map(\.deadline.offset) } }

    /// Waits (real time, up to 30 s) until someone sleeps until `offset` from the start.
    func waitForSleeper(until offset: Duration) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !sleeperDeadlines.contains(offset) {
            guard ContinuousClock.now < deadline else {
                throw WaitError(description: "no sleeper until \(offset); sleepers: \(sleeperDeadlines)")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// A condition was not reached in time.
struct WaitError: Error, CustomStringConvertible {
    let description: String
}

/// Polls `condition` (real time, up to `timeout`).
func eventually(
    timeout: Duration = .seconds(30), _ condition: @Sendable () async -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try await Task.sleep(for: .milliseconds(2))
    }
    return await condition()
}
