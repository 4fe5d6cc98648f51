import ClawTalkSupport
import Foundation
import Synchronization
import Testing

@testable import ClawTalkNode

@Suite("Service runner", .serialized, .timeLimit(.minutes(1)))
struct ServiceRunnerTests {
    /// Records the runner's events in order.
    final class EventLog: Sendable {
        private let events = Mutex<[ServiceRunner.Event]>([])
        func append(_ event: ServiceRunner.Event) { events.locked { $0.append(event) } }
        var all: [ServiceRunner.Event] { events.locked { $0 } }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "work failed" }
    }

    @Test func workThatReturnsEndsTheRunWithZero() async throws {
        let log = EventLog()
        let runner = ServiceRunner(stopSignals: [SIGUSR2], work: {}, onEvent: log.append)
        #expect(try await runner.run() == 0)
        #expect(log.all == [.started, .stopping(.finished)])
    }

    @Test func workThatThrowsEndsTheRunWithItsError() async {
        let log = EventLog()
        let runner = ServiceRunner(stopSignals: [SIGUSR2], work: { throw Failure() }, onEvent: log.append)
        await #expect(throws: Failure.self) { try await runner.run() }
        #expect(log.all == [.started, .stopping(.failed("work failed"))])
    }

    @Test func aStopSignalCancelsTheWorkAndReturnsZero() async throws {
        let log = EventLog()
        let cancelled = Atomic<Bool>(false)
        let runner = ServiceRunner(
            stopSignals: [SIGUSR2],
            work: {
                // Raise the signal from inside the work: the handlers are installed by now.
                kill(getpid(), SIGUSR2)
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    cancelled.store(true, ordering: .sequentiallyConsistent)
                    throw error
                }
            },
            onEvent: log.append)
        #expect(try await runner.run() == 0)
        let workSawCancellation = cancelled.load(ordering: .sequentiallyConsistent)
        #expect(workSawCancellation)
        #expect(log.all == [.started, .stopping(.signal(SIGUSR2))])
    }

    /// Work that cannot be interrupted (a model load in a C library) is not awaited on the way
    /// out: the run returns while it is still going, and says so.
    @Test func workThatIgnoresCancellationIsAbandonedAfterTheGrace() async throws {
        let log = EventLog()
        let finished = Atomic<Bool>(false)
        let release = DispatchSemaphore(value: 0)
        let runner = ServiceRunner(
            stopSignals: [SIGUSR2], stopGrace: .milliseconds(100),
            work: {
                kill(getpid(), SIGUSR2)
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().async {
                        release.wait()
                        continuation.resume()
                    }
                }
                finished.store(true, ordering: .sequentiallyConsistent)
            },
            onEvent: log.append)
        #expect(try await runner.run() == 0)
        let workFinished = finished.load(ordering: .sequentiallyConsistent)
        #expect(!workFinished, "the run waited for work that ignores cancellation")
        #expect(log.all == [.started, .stopping(.signal(SIGUSR2)), .abandoned])
        release.signal()
    }
}
