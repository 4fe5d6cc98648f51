import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkTalk

@Suite("Persistent outbox (issue #6)", .serialized, .timeLimit(.minutes(1)))
struct OutboxTests {
    /// Path of the gateway's outbox file.
    static func outboxPath(_ harness: GatewayHarness) throws -> String {
        harness.state.filePath(try harness.store.dataFileName(for: harness.gatewayKey, suffix: "outbox"))
    }

    static func delivery(
        _ harness: GatewayHarness, now: @escaping @Sendable () -> Int64 = DeviceIdentity.currentTimeMs,
        configuration: TranscriptDelivery.Configuration = .init(retryInitial: .milliseconds(50))
    ) async -> TranscriptDelivery {
        let delivery = TranscriptDelivery(
            configuration: configuration, store: harness.store, tracker: ReplyTracker(), now: now)
        await delivery.attach(gatewayKey: harness.gatewayKey, node: harness.nodeSession)
        await delivery.attach(operator: harness.operatorSession)
        return delivery
    }

    @Test func offlineTranscriptsAreKeptOnDiskAndSentInOrderWithTheSameIdsAfterReconnecting() async throws {
        let harness = try GatewayHarness()
        let delivery = await Self.delivery(harness)
        var ids: [String] = []
        for text in ["first", "second", "third"] {
            let receipt = await delivery.deliver(text, source: .pushToTalk)
            #expect(receipt.outcome == .queuedOffline)
            ids.append(receipt.id)
        }
        #expect(await delivery.queued.map(\.id) == ids)
        let path = try Self.outboxPath(harness)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // A restart: a new delivery finds the same queue on disk.
        await delivery.detach()
        let restarted = await Self.delivery(harness)
        #expect(await restarted.queued.map(\.id) == ids)
        #expect(await restarted.queued.map(\.message) == ["first", "second", "third"])

        try await harness.startNode()
        try await GatewayHarness.wait("three transcripts") { await harness.nodeEvents("voice.transcript").count == 3 }
        let sent = await harness.nodeEvents("voice.transcript")
        #expect(sent.map { $0["eventId"]?.stringValue } == ids)
        #expect(sent.map { $0["text"]?.stringValue } == ["first", "second", "third"])
        try await GatewayHarness.wait("outbox empty") { await restarted.queued.isEmpty }
        #expect(!FileManager.default.fileExists(atPath: path))
        await restarted.detach()
        await harness.stop()
    }

    @Test func inFullModeTheQueueGoesByChatSendWithTheQueuedIdsAsIdempotencyKeys() async throws {
        let harness = try GatewayHarness()
        let delivery = await Self.delivery(harness)
        var ids: [String] = []
        for text in ["one", "two"] { ids.append(await delivery.deliver(text, source: .talkMode).id) }
        try await harness.startOperator()
        try await GatewayHarness.wait("two chat.send") { await harness.operatorCalls("chat.send").count == 2 }
        let sends = await harness.operatorCalls("chat.send")
        #expect(sends.map { $0["idempotencyKey"]?.stringValue } == ids)
        #expect(sends.map { $0["message"]?.stringValue } == ["one", "two"])
        // A new transcript goes after the queue.
        let live = await delivery.deliver("three", source: .pushToTalk)
        #expect(live.outcome == .sent(route: .chatSend))
        #expect(await harness.operatorCalls("chat.send").last?["idempotencyKey"]?.stringValue == live.id)
        await delivery.detach()
        await harness.stop()
    }

    @Test func aTranscriptCutOffByADroppedConnectionIsRetriedWithTheSameEventId() async throws {
        let harness = try GatewayHarness()
        try await harness.startNode()
        let delivery = await Self.delivery(harness)
        let node = try #require(await harness.gateway.sessions.first { $0.isNode }?.connection)
        await harness.gateway.stall(connection: node)
        let sending = Task { await delivery.deliver("did you get this", source: .pushToTalk) }
        try await GatewayHarness.wait("transcript handled") { await harness.nodeEvents("voice.transcript").count == 1 }
        // The gateway handled it but the answer never came back: the socket drops.
        await harness.gateway.close(connection: node, code: 1006, reason: "network")
        let receipt = await sending.value
        #expect(receipt.outcome == .queuedOffline)
        #expect(await delivery.queued.map(\.id) == [receipt.id])
        try await GatewayHarness.wait("retried after reconnecting") {
            await delivery.queued.isEmpty
        }
        let attempts = await harness.gateway.recordedFrames().filter { frame in
            frame.direction == .received && frame.method == "node.event"
                && frame.json?["params"]?["event"] == "voice.transcript"
        }
        #expect(attempts.count == 2)
        let eventIds = attempts.compactMap { frame -> String? in
            guard let text = frame.json?["params"]?["payloadJSON"]?.stringValue else { return nil }
            return (try? WireJSON(parsing: text))?["eventId"]?.stringValue
        }
        #expect(eventIds == [receipt.id, receipt.id])
        // The gateway deduped the retry: one turn.
        #expect(await harness.nodeEvents("voice.transcript").count == 1)
        await delivery.detach()
        await harness.stop()
    }

    @Test func atMostFiftyAreKeptAndTheOldestAreDroppedFirst() async throws {
        let harness = try GatewayHarness()
        let delivery = await Self.delivery(harness)
        var ids: [String] = []
        for index in 0..<52 { ids.append(await delivery.deliver("note \(index)", source: .pushToTalk).id) }
        let queued = await delivery.queued
        #expect(queued.count == 50)
        #expect(queued.map(\.id) == Array(ids.dropFirst(2)))
        let restarted = await Self.delivery(harness)
        #expect(await restarted.queued.count == 50)
        await delivery.detach()
        await restarted.detach()
    }

    @Test func transcriptsOlderThan48HoursExpire() async throws {
        let harness = try GatewayHarness()
        let clock = ManualWallClock()
        let delivery = await Self.delivery(harness, now: clock.now)
        let old = await delivery.deliver("from two days ago", source: .pushToTalk)
        clock.advance(by: .seconds(47 * 3600))
        let recent = await delivery.deliver("from yesterday", source: .pushToTalk)
        #expect(await delivery.queued.map(\.id) == [old.id, recent.id])
        clock.advance(by: .seconds(2 * 3600))
        try await harness.startNode()
        try await GatewayHarness.wait("outbox flushed") { await delivery.queued.isEmpty }
        #expect(await harness.nodeEvents("voice.transcript").map { $0["eventId"]?.stringValue } == [recent.id])
        await delivery.detach()
        await harness.stop()
    }

    @Test func forgettingTheGatewayDeletesItsOutbox() async throws {
        let harness = try GatewayHarness()
        let delivery = await Self.delivery(harness)
        _ = await delivery.deliver("keep me", source: .pushToTalk)
        let path = try Self.outboxPath(harness)
        #expect(FileManager.default.fileExists(atPath: path))
        await delivery.detach()
        try harness.store.forget(harness.gatewayKey)
        #expect(!FileManager.default.fileExists(atPath: path))
        let fresh = await Self.delivery(harness)
        #expect(await fresh.queued.isEmpty)
        await fresh.detach()
    }

    @Test func withoutAGatewayNothingIsAcceptedSilently() async throws {
        let harness = try GatewayHarness()
        let delivery = TranscriptDelivery(configuration: .init(), store: harness.store, tracker: nil)
        let receipt = await delivery.deliver("hello", source: .pushToTalk)
        #expect(receipt.outcome == .failed("no gateway configured"))
        #expect(await delivery.deliver("   ", source: .pushToTalk).outcome == .failed("empty transcript"))
    }
}
