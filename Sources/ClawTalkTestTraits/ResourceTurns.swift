import Synchronization

/// The process-wide turns of ``SharedResourceTrait``, one pair per resource name.
enum ResourceTurns {
    /// The turn of a resource (one suite, or one lone test, at a time) and the turn of the tests
    /// inside the suite that holds it (one at a time).
    struct Pair: Sendable {
        let resource = AsyncTurn()
        let member = AsyncTurn()
    }

    /// The resources the current task runs in the turn of.
    @TaskLocal static var held: Set<String> = []

    private static let registry = Mutex<[String: Pair]>([:])

    /// The turns of `resource`, made on first use.
    static func turns(for resource: String) -> Pair {
        registry.withLock { pairs in
            if let pair = pairs[resource] { return pair }
            let pair = Pair()
            pairs[resource] = pair
            return pair
        }
    }
}

/// A first-come, first-served mutual exclusion for async code: waiters suspend (no thread is
/// blocked, so the test runner's few threads keep running other tests).
actor AsyncTurn {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` when no other `run` of this turn is running.
    nonisolated func run(_ body: @Sendable () async throws -> Void) async throws {
        await acquire()
        do {
            try await body()
            await release()
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
