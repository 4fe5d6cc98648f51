import Synchronization
import Testing

@testable import ClawTalkSupport

@Suite("Child task queue", .timeLimit(.minutes(1)))
struct ChildTaskQueueTests {
    @Test func workSpawnedBeforeAndWhileRunningRunsAndRunWaitsForItAfterCancellation() async {
        let queue = ChildTaskQueue()
        let (events, log) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        queue.spawn { log.yield("early") }
        let runner = Task { await queue.run() }
        var seen = events.makeAsyncIterator()
        #expect(await seen.next() == "early", "work queued before run() starts with it")

        // A child that waits until it is cancelled, then reports: run() must wait for it.
        let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
        queue.spawn {
            startedSignal.yield()
            let (never, _) = AsyncStream.makeStream(of: Void.self)
            for await _ in never {}  // ends when the child is cancelled
            log.yield("child cancelled")
        }
        var startedIterator = started.makeAsyncIterator()
        await startedIterator.next()
        runner.cancel()
        await runner.value
        log.finish()
        var rest: [String] = []
        while let event = await seen.next() { rest.append(event) }
        #expect(rest == ["child cancelled"], "run() returned only after its child ended")
    }

    @Test func workSpawnedAfterRunEndedIsDropped() async {
        let queue = ChildTaskQueue()
        let runner = Task { await queue.run() }
        runner.cancel()
        await runner.value
        let ran = Atomic<Bool>(false)
        queue.spawn { ran.store(true, ordering: .relaxed) }
        // Nothing serves the queue any more, so nothing can run it; a second run() (not allowed
        // in use) would find the queue finished and return at once.
        await queue.run()
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }
}
