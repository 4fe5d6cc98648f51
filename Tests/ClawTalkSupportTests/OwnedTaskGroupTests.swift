import Testing

@testable import ClawTalkSupport

@Suite("Owned task group", .timeLimit(.minutes(1)))
struct OwnedTaskGroupTests {
    @Test func spawnedWorkRunsAndFinishedWaitsForTheRunningChildren() async {
        let group = OwnedTaskGroup()
        let (events, log) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        group.spawn {
            log.yield("started")
            for await _ in gate { break }
            log.yield("ended")
        }
        var seen = events.makeAsyncIterator()
        #expect(await seen.next() == "started")
        let finished = Task {
            await group.finished()
            log.yield("finished")
        }
        open.yield()
        await finished.value
        log.finish()
        #expect(await seen.next() == "ended", "finished() returned only after the child ended")
        #expect(await seen.next() == "finished")
    }

    @Test func cancelAllCancelsTheRunningChildrenAndDropsLaterWork() async {
        let group = OwnedTaskGroup()
        let (events, log) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        group.spawn {
            log.yield("started")
            let (never, _) = AsyncStream.makeStream(of: Void.self)
            for await _ in never {}  // ends when the child is cancelled
            log.yield("cancelled")
        }
        var seen = events.makeAsyncIterator()
        #expect(await seen.next() == "started")
        group.cancelAll()
        #expect(await seen.next() == "cancelled")
        group.spawn { log.yield("late") }
        await group.finished()
        log.finish()
        #expect(await seen.next() == nil, "work spawned after cancelAll() does not run")
    }
}
