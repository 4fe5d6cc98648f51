import Testing

@testable import ClawTalkTalk

/// The pure rules of delivery: the outbox's capacity, expiry and whose reply is spoken, and the
/// route tried first.
@Suite("Delivery rules")
struct DeliveryRulesTests {
    static func entry(_ id: String, at ms: Int64) -> QueuedTranscript {
        QueuedTranscript(id: id, message: "m\(id)", source: .pushToTalk, sessionKey: "main", queuedAtMs: ms)
    }

    static func queue(capacity: Int = 3, maxAgeMs: Int64 = 1000, speakWithinMs: Int64 = 100) -> OutboxQueue {
        OutboxQueue(capacity: capacity, maxAgeMs: maxAgeMs, speakRepliesWithinMs: speakWithinMs)
    }

    @Test func beyondTheCapacityTheOldestGoFirst() {
        var queue = Self.queue(capacity: 3)
        for index in 0..<3 {
            let dropped = queue.append(Self.entry("\(index)", at: 10), nowMs: 10)
            #expect(dropped.full.isEmpty && dropped.expired.isEmpty)
        }
        let dropped = queue.append(Self.entry("3", at: 11), nowMs: 11)
        #expect(dropped.full.map(\.id) == ["0"])
        #expect(queue.entries.map(\.id) == ["1", "2", "3"])
        #expect(queue.head?.id == "1")
    }

    @Test func expiredTranscriptsAreDroppedBeforeAppending() {
        var queue = Self.queue(capacity: 2, maxAgeMs: 1000)
        _ = queue.append(Self.entry("old", at: 0), nowMs: 0)
        _ = queue.append(Self.entry("new", at: 900), nowMs: 900)
        // At 1001 the first is older than 1000 ms: it expires, so the third needs no room.
        let dropped = queue.append(Self.entry("third", at: 1001), nowMs: 1001)
        #expect(dropped.expired.map(\.id) == ["old"])
        #expect(dropped.full.isEmpty)
        #expect(queue.entries.map(\.id) == ["new", "third"])
        #expect(queue.removeExpired(nowMs: 1900).isEmpty, "exactly the maximum age is kept")
        #expect(queue.removeExpired(nowMs: 1901).map(\.id) == ["new"])
    }

    @Test func onlyTheLastRecentTranscriptsReplyIsSpoken() {
        var queue = Self.queue(speakWithinMs: 100)
        _ = queue.append(Self.entry("a", at: 0), nowMs: 0)
        _ = queue.append(Self.entry("b", at: 50), nowMs: 50)
        #expect(!queue.tracksReplyOfHead(trackLast: true, nowMs: 60), "not the last one")
        queue.removeHead()
        #expect(queue.tracksReplyOfHead(trackLast: true, nowMs: 150), "waited exactly 100 ms")
        #expect(!queue.tracksReplyOfHead(trackLast: true, nowMs: 151), "waited too long")
        #expect(!queue.tracksReplyOfHead(trackLast: false, nowMs: 60), "the caller speaks none")
        queue.removeHead()
        #expect(queue.isEmpty)
        #expect(!queue.tracksReplyOfHead(trackLast: true, nowMs: 60))
        queue.removeHead()
        #expect(queue.isEmpty, "removing from an empty queue does nothing")
    }

    @Test func theLimitsComeFromTheDeliveryConfiguration() {
        let configuration = TranscriptDelivery.Configuration(
            outboxCapacity: 7, outboxMaxAge: .seconds(2), speakRepliesQueuedWithin: .milliseconds(1500))
        let queue = OutboxQueue(configuration: configuration)
        #expect(queue.capacity == 7)
        #expect(queue.maxAgeMs == 2000)
        #expect(queue.speakRepliesWithinMs == 1500)
    }

    /// The operator route tried first (talk.md §3.1), for each primary route and connection state.
    @Test(arguments: [DeliveryReceipt.Route.chatSend, .agent, .voiceTranscript])
    func theOperatorRouteGoesFirstUnlessTheNodeRouteIsUp(primary: DeliveryReceipt.Route) {
        for nodeUp in [false, true] {
            #expect(TranscriptDelivery.operatorRoute(primary: primary, nodeUp: nodeUp, operatorUp: false) == nil)
        }
        let expected: DeliveryReceipt.Route? = primary == .voiceTranscript ? nil : primary
        #expect(TranscriptDelivery.operatorRoute(primary: primary, nodeUp: true, operatorUp: true) == expected)
        // A node route with the node down goes by chat.send on the operator connection.
        let nodeDown: DeliveryReceipt.Route = primary == .agent ? .agent : .chatSend
        #expect(TranscriptDelivery.operatorRoute(primary: primary, nodeUp: false, operatorUp: true) == nodeDown)
    }
}
