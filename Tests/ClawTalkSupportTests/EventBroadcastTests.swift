import Testing

@testable import ClawTalkSupport

@Suite("Event broadcast", .timeLimit(.minutes(1)))
struct EventBroadcastTests {
    /// Everything a finished stream still holds, in order.
    static func drain(_ stream: AsyncStream<Int>) async -> [Int] {
        var seen: [Int] = []
        for await element in stream { seen.append(element) }
        return seen
    }

    @Test func everySubscriberGetsEachElementInOrderAfterItsFirst() async {
        let broadcast = EventBroadcast<Int>(bufferingNewest: 8)
        let plain = broadcast.subscribe()
        let withFirst = broadcast.subscribe(startingWith: 0)
        for element in 1...3 { broadcast.publish(element) }
        broadcast.finish()
        #expect(await Self.drain(plain) == [1, 2, 3])
        #expect(await Self.drain(withFirst) == [0, 1, 2, 3])
        #expect(broadcast.drops == 0)
    }

    @Test func aFilterAdmitsOnlyItsElements() async {
        let broadcast = EventBroadcast<Int>(bufferingNewest: 8)
        let even = broadcast.subscribe(where: { $0 % 2 == 0 })
        let all = broadcast.subscribe()
        for element in 1...5 { broadcast.publish(element) }
        broadcast.finish()
        #expect(await Self.drain(even) == [2, 4])
        #expect(await Self.drain(all) == [1, 2, 3, 4, 5])
    }

    @Test func aSlowReaderKeepsTheNewestOfItsBufferAndTheLossIsCounted() async {
        let broadcast = EventBroadcast<Int>(bufferingNewest: 4)
        let small = broadcast.subscribe(bufferingNewest: 2)
        let large = broadcast.subscribe()
        var droppedBy: [Int] = []
        for element in 1...5 { droppedBy.append(broadcast.publish(element)) }
        broadcast.finish()
        #expect(await Self.drain(small) == [4, 5], "its own buffer of 2, newest kept")
        #expect(await Self.drain(large) == [2, 3, 4, 5], "the broadcast's buffer of 4")
        #expect(droppedBy == [0, 0, 1, 1, 2])
        #expect(broadcast.drops == 4)
    }

    @Test func aStreamIsForgottenWhenItsReaderStops() async {
        let broadcast = EventBroadcast<Int>(bufferingNewest: 8)
        let stream = broadcast.subscribe(startingWith: 0)
        let (started, signal) = AsyncStream.makeStream(of: Void.self)
        let reader = Task {
            for await _ in stream { signal.yield() }
        }
        #expect(broadcast.subscriberCount == 1)
        var iterator = started.makeAsyncIterator()
        await iterator.next()  // the reader has its first element and waits for the next
        reader.cancel()
        await reader.value
        #expect(broadcast.subscriberCount == 0, "cancelling the reader ends and forgets its stream")

        do {
            let held = broadcast.subscribe()
            withExtendedLifetime(held) { #expect(broadcast.subscriberCount == 1) }
        }
        #expect(broadcast.subscriberCount == 0, "a stream nobody holds is forgotten")
        #expect(broadcast.publish(1) == 0)
    }

    @Test func afterFinishASubscriptionEndsAtOnceUntilReopened() async {
        let broadcast = EventBroadcast<Int>(bufferingNewest: 8)
        let open = broadcast.subscribe()
        broadcast.finish()
        #expect(await Self.drain(open) == [])
        #expect(await Self.drain(broadcast.subscribe(startingWith: 7)) == [7], "its first element, then the end")
        broadcast.publish(1)
        broadcast.reopen()
        let reopened = broadcast.subscribe()
        broadcast.publish(2)
        broadcast.finish()
        #expect(await Self.drain(reopened) == [2])
    }

    @Test func theKeptElementIsReplayedOnlyToSubscribersThatAsk() async {
        // Keeps the latest even element; an odd one clears it.
        let broadcast = EventBroadcast<Int>(bufferingNewest: 8, keeping: { _, new in new % 2 == 0 ? new : nil })
        broadcast.publish(2)
        #expect(broadcast.kept == 2)
        let replaying = broadcast.subscribe(startingWith: 0, replayingKept: true)
        let fresh = broadcast.subscribe()
        let filtered = broadcast.subscribe(replayingKept: true, where: { $0 > 2 })
        broadcast.publish(3)
        #expect(broadcast.kept == nil)
        broadcast.publish(4)
        broadcast.finish()
        #expect(await Self.drain(replaying) == [0, 2, 3, 4])
        #expect(await Self.drain(fresh) == [3, 4])
        #expect(await Self.drain(filtered) == [3, 4], "the filter applies to the kept element too")
        #expect(broadcast.kept == 4, "finishing keeps it")
        #expect(await Self.drain(broadcast.subscribe(replayingKept: true)) == [4])
    }

    @Test func withoutKeepingNothingIsReplayed() async {
        let broadcast = EventBroadcast<Int>(bufferingNewest: 8)
        broadcast.publish(1)
        #expect(broadcast.kept == nil)
        broadcast.finish()
        #expect(await Self.drain(broadcast.subscribe(replayingKept: true)) == [])
    }
}
