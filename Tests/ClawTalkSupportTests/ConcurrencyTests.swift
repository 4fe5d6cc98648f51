import ClawTalkTesting
import Synchronization
import Testing

@testable import ClawTalkSupport

@Suite("Concurrency helpers", .timeLimit(.minutes(1)))
struct ConcurrencyTests {
    @Test func timesOutASlowOperationAndCancelsIt() async {
        let cancelled = Mutex(false)
        let start = ContinuousClock.now
        await #expect(throws: TimeoutError.self) {
            try await withTimeout(.milliseconds(50)) {
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    cancelled.locked { $0 = true }
                    throw error
                }
                return 1
            }
        }
        let elapsed = ContinuousClock.now - start
        // Far below the 60 s the operation would take, whatever the machine's speed.
        #expect(elapsed < .seconds(30))
        #expect(elapsed >= .milliseconds(50))
        #expect(cancelled.locked { $0 })
    }

    @Test func returnsTheResultWhenInTime() async throws {
        let value = try await withTimeout(.seconds(5), clock: ContinuousClock()) {
            try await Task.sleep(for: .milliseconds(10))
            return "done"
        }
        #expect(value == "done")
    }

    @Test func operationErrorsPassThrough() async {
        struct Boom: Error, Equatable {}
        await #expect(throws: Boom()) {
            try await withTimeout(.seconds(5)) { () async throws -> Int in throw Boom() }
        }
    }

    @Test func timeoutErrorDescribesTheLimit() async {
        do {
            _ = try await withTimeout(.milliseconds(20)) {
                try await Task.sleep(for: .seconds(5))
                return 0
            }
            Issue.record("expected a timeout")
        } catch let error as TimeoutError {
            #expect(error.description == "timed out after 0.02 seconds")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    final class Counter: Sendable {
        let value = Mutex(0)
        func increment() { value.locked { $0 += 1 } }
    }

    @Test func onceRunsExactlyOnceAcrossTasks() async {
        let once = Once()
        let runs = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<32 {
                group.addTask { once.run { runs.increment() } }
            }
        }
        #expect(runs.value.locked { $0 } == 1)
        #expect(once.isClaimed)
        #expect(once.claim() == false)
    }

    @Test func resumeOnceIgnoresLateResumes() async throws {
        let results = Mutex<[Bool]>([])
        let value: Int = try await withCheckedThrowingContinuation { continuation in
            let gate = ResumeOnce(continuation)
            results.locked { $0.append(gate.resume(returning: 7)) }
            results.locked { $0.append(gate.resume(throwing: CancellationError())) }
            results.locked { $0.append(gate.resume(returning: 8)) }
            results.locked { $0.append(gate.isResumed) }
        }
        #expect(value == 7)
        #expect(results.locked { $0 } == [true, false, false, true])
    }

    @Test func anAsyncLaneRunsItsWorkInOrderOneAtATime() async {
        let lane = AsyncLane()
        let log = Mutex<[Int]>([])
        let running = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        for index in 0..<50 {
            lane.enqueue {
                if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                    overlapped.store(true, ordering: .sequentiallyConsistent)
                }
                // Items that suspend still finish before the next one starts.
                if index.isMultiple(of: 7) { await Task.yield() }
                log.locked { $0.append(index) }
                running.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
        await lane.drained()
        #expect(log.locked { $0 } == Array(0..<50))
        let didOverlap = overlapped.load(ordering: .sequentiallyConsistent)
        #expect(!didOverlap)
    }

    @Test func runReturnsEachResultAfterTheWorkQueuedBeforeIt() async {
        let lane = AsyncLane()
        let (gate, open) = AsyncStream<Void>.makeStream()
        let log = Mutex<[String]>([])
        lane.enqueue {
            for await _ in gate { break }
            log.locked { $0.append("first") }
        }
        let second = Task {
            await lane.run {
                log.locked { $0.append("second") }; return 2
            }
        }
        // The barrier: the run's work is queued behind the gated work (which the worker took).
        #expect(await eventually { lane.queuedCount == 1 })
        #expect(log.locked { $0 } == [])
        open.yield()
        #expect(await second.value == 2)
        #expect(log.locked { $0 } == ["first", "second"])
    }

    @Test func drainingWaitsForWhatWasQueuedBeforeIt() async {
        let lane = AsyncLane()
        let (gate, open) = AsyncStream<Void>.makeStream()
        let done = Atomic<Bool>(false)
        lane.enqueue {
            for await _ in gate { break }
            done.store(true, ordering: .sequentiallyConsistent)
        }
        let drained = Task {
            await lane.drained()
            return done.load(ordering: .sequentiallyConsistent)
        }
        // The barrier: the drain's marker is queued behind the gated work. A lane that did not
        // wait would report false (the gate opens only now).
        #expect(await eventually { lane.queuedCount == 1 })
        open.yield()
        #expect(await drained.value)
    }

    @Test func workQueuedOnAReleasedLaneStillRuns() async {
        let (ran, report) = AsyncStream<Int>.makeStream()
        do {
            let lane = AsyncLane()
            for index in 0..<3 { lane.enqueue { report.yield(index) } }
        }
        var seen: [Int] = []
        for await index in ran {
            seen.append(index)
            if seen.count == 3 { break }
        }
        #expect(seen == [0, 1, 2])
    }
}
