import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// The emulated realtime provider's harness side: the turn summary a bench polls, and a gateway
/// that keeps no audio in its traffic log.
@Suite(.timeLimit(.minutes(1))) struct RealtimeEmulatorTests {
    /// A short reply sent at once, with a mark every two chunks (five chunks: three marks).
    static var script: OperatorScript {
        var script = OperatorScript()
        script.realtime.reply = TestRealtimeScript.tone(seconds: 0.1)
        script.realtime.chunkPaceMs = 0
        script.realtime.markEveryChunks = 2
        return script
    }

    func start(_ gateway: TestGateway) async throws -> (WireClient, WireJSON) {
        let client = try await connected(gateway, ConnectBuilder.operator(Fixture.identity(62))).client
        let created = try await client.call(
            "talk.session.create",
            ["mode": "realtime", "transport": "gateway-relay", "brain": "agent-consult", "sessionKey": "main"])
        return (client, .string(try #require(created["payload"]?["sessionId"]?.stringValue)))
    }

    /// The marks of the reply in progress, read up to its assistant transcript.
    func marks(_ client: WireClient) async throws -> [String] {
        var names: [String] = []
        while true {
            let payload = try await client.event("talk.event")["payload"]
            if payload?["type"] == "mark", let name = payload?["name"]?.stringValue { names.append(name) }
            if payload?["type"] == "transcript", payload?["role"] == "assistant" { return names }
        }
    }

    @Test func aTurnIsSummedUpUntilItsMarksAreAcknowledgedOrItIsCancelled() async throws {
        let (gateway, _) = Fixture.gateway(script: Self.script)
        let (client, sessionId) = try await start(gateway)
        #expect(await gateway.realtimeTurn() == nil, "no turn yet")

        await gateway.startRealtimeReply()
        let names = try await marks(client)
        #expect(names.count == 3)
        let sent = try #require(await gateway.realtimeTurn())
        #expect(sent.turnId == "turn-1")
        #expect(!sent.active && !sent.stopped && sent.marksSent == 3 && sent.marksAcknowledged == 0)
        #expect(sent.startedAt != nil)
        #expect(!sent.ended, "sent whole, not yet played")
        for name in names.dropLast() {
            _ = try await client.call("talk.session.acknowledgeMark", ["sessionId": sessionId, "name": .string(name)])
        }
        #expect(await gateway.realtimeTurn("turn-1")?.ended == false)
        _ = try await client.call("talk.session.acknowledgeMark", ["sessionId": sessionId, "name": .string(names[2])])
        #expect(await gateway.realtimeTurn("turn-1")?.marksAcknowledged == 3)
        #expect(await gateway.realtimeTurn("turn-1")?.ended == true)

        // A long reply, cancelled while it plays: stopped, so ended without its marks.
        await gateway.setRealtimeReply(TestRealtimeScript.tone(seconds: 30))
        await gateway.updateScript { $0.realtime.chunkPaceMs = 20 }
        await gateway.startRealtimeReply()
        let playing = try #require(await gateway.realtimeTurn())
        #expect(playing.turnId == "turn-2" && playing.active && !playing.ended)
        _ = try await client.call("talk.session.cancelOutput", ["sessionId": sessionId, "turnId": "turn-2"])
        let cancelled = try #require(await gateway.realtimeTurn("turn-2"))
        #expect(cancelled.stopped && !cancelled.active && cancelled.ended)
        #expect(await gateway.realtimeTurn("turn-3") == nil)
    }

    /// Two 20 ms appends and the calls around them.
    func appendTwice(_ gateway: TestGateway) async throws {
        let (client, sessionId) = try await start(gateway)
        let chunk = Data(count: 960).base64EncodedString()
        for timestamp in [0, 20] {
            let appended = try await client.call(
                "talk.session.appendAudio",
                ["sessionId": sessionId, "audioBase64": .string(chunk), "timestamp": .integer(Int64(timestamp))])
            #expect(appended["ok"] == true)
        }
        _ = try await client.call("talk.session.close", ["sessionId": sessionId])
    }

    /// How many frames and harness events of `gateway` carry audio.
    func audioTraffic(_ gateway: TestGateway) async -> (frames: Int, calls: Int, creates: Int) {
        let frames = await gateway.recordedFrames().filter { $0.text.contains("\"audioBase64\"") }.count
        var calls = 0
        var creates = 0
        for case .operatorCall(_, let method, _) in await gateway.observedEvents {
            if method == "talk.session.appendAudio" { calls += 1 }
            if method == "talk.session.create" { creates += 1 }
        }
        return (frames, calls, creates)
    }

    @Test func withoutAudioRecordingTheAppendsAreCountedButNotLogged() async throws {
        let (recording, _) = Fixture.gateway(script: Self.script)
        try await appendTwice(recording)
        let kept = await audioTraffic(recording)
        #expect(kept.frames == 2 && kept.calls == 2 && kept.creates == 1)

        let (quiet, _) = Fixture.gateway({ $0.recordsAudio = false }, script: Self.script)
        try await appendTwice(quiet)
        let dropped = await audioTraffic(quiet)
        #expect(dropped.frames == 0 && dropped.calls == 0, "audio kept: \(dropped)")
        #expect(dropped.creates == 1, "the other calls are still logged")
        #expect(await quiet.recordedRealtimeSessions().first?.timestamps == [0, 20])
    }
}
