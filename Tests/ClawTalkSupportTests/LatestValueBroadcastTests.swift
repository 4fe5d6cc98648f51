import Testing

@testable import ClawTalkSupport

@Suite("Latest-value broadcast", .timeLimit(.minutes(1)))
struct LatestValueBroadcastTests {
    @Test func aNewSubscriberStartsWithTheLatestValueOnlyWhenAsked() async {
        let broadcast = LatestValueBroadcast<Int>()
        #expect(broadcast.latest == nil)
        broadcast.publish(1)
        broadcast.publish(2)
        var replaying = broadcast.subscribe(replayingLatest: true).makeAsyncIterator()
        var fresh = broadcast.subscribe(replayingLatest: false).makeAsyncIterator()
        broadcast.publish(3)
        #expect(await replaying.next() == 3, "only the newest unread value is kept")
        #expect(await fresh.next() == 3)
        #expect(broadcast.latest == 3)

        var late = broadcast.subscribe(replayingLatest: true).makeAsyncIterator()
        #expect(await late.next() == 3)
    }

    @Test func everySubscriberHearsEachChangeItWaitsFor() async {
        let broadcast = LatestValueBroadcast<String>()
        let first = broadcast.subscribe(replayingLatest: false)
        let second = broadcast.subscribe(replayingLatest: false)
        let reader = Task { () -> [String] in
            var seen: [String] = []
            for await value in first {
                seen.append(value)
                if value == "b" { break }
            }
            return seen
        }
        var iterator = second.makeAsyncIterator()
        broadcast.publish("a")
        #expect(await iterator.next() == "a")
        broadcast.publish("b")
        #expect(await iterator.next() == "b")
        let seen = await reader.value
        #expect(seen == ["a", "b"] || seen == ["b"], "newest unread value only")
    }
}
