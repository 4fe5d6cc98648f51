import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// Checklist item 31 and talk.md §11.3 (`node.event`, `chat.subscribe`).
@Suite(.timeLimit(.minutes(1))) struct NodeEventTests {
    @Test func nodeEventParamsAreClosedAndAnsweredWithTheResultShape() async throws {  // 31
        let (gateway, _) = Fixture.gateway()
        let node = try await connected(gateway)
        let extra = try await node.client.call(
            "node.event", ["event": "voice.transcript", "payloadJSON": "{}", "sessionKey": "main"])
        #expect(extra["error"]?["code"] == "INVALID_REQUEST")
        #expect(extra["error"]?["message"] == "invalid node.event params: at root: unexpected property 'sessionKey'")
        let params = try NodeEventParams.voiceTranscript(
            VoiceTranscriptEvent(text: "turn on the lights", sessionKey: "main"))
        let handled = try await node.client.call("node.event", try WireJSON(encoding: params))
        #expect(handled["payload"] == ["ok": true, "event": "voice.transcript", "handled": true])
        let duplicate = try await node.client.call("node.event", try WireJSON(encoding: params))
        #expect(
            duplicate["payload"] == ["ok": true, "event": "voice.transcript", "handled": false, "reason": "duplicate"])
        let unknown = try await node.client.call("node.event", ["event": "camera.moved", "payloadJSON": "{}"])
        #expect(unknown["payload"]?["handled"] == false)
        #expect(unknown["payload"]?["reason"] == "unsupported event")
        let delivered = try await gateway.waitForEvent {
            if case .nodeEvent(_, "voice.transcript", _) = $0 { return true }
            return false
        }
        guard case .nodeEvent(_, _, let payload) = delivered else { return }
        #expect(payload?["text"] == "turn on the lights")
    }

    @Test func payloadJSONWinsAndUnknownPresenceTriggersBecomeBackground() async throws {  // 31
        let (gateway, _) = Fixture.gateway()
        let node = try await connected(gateway)
        _ = try await node.client.call(
            "node.event",
            [
                "event": "node.presence.alive", "payload": ["trigger": "manual"],
                "payloadJSON": #"{"trigger":"wormhole"}"#,
            ])
        #expect(await gateway.session(connection: node.client.connection)?.lastPresenceTrigger == "background")
        _ = try await node.client.call(
            "node.event", ["event": "node.presence.alive", "payloadJSON": #"{"trigger":"connect"}"#])
        #expect(await gateway.session(connection: node.client.connection)?.lastPresenceTrigger == "connect")
    }

    @Test(arguments: [false, true])
    func strictNullModeRejectsANullPayloadJSON(strict: Bool) async throws {  // 31
        let (gateway, _) = Fixture.gateway { $0.strictNullPayloadJSON = strict }
        let node = try await connected(gateway)
        let response = try await node.client.call(
            "node.event", ["event": "node.presence.alive", "payload": ["trigger": "connect"], "payloadJSON": .null])
        if strict {
            #expect(response["error"]?["message"] == "invalid node.event params: at /payloadJSON: must be string")
        } else {
            #expect(response["payload"]?["handled"] == true)
        }
    }

    @Test func chatEventsReachANodeOnlyAfterSubscribe() async throws {  // talk.md §11.3
        let (gateway, _) = Fixture.gateway()
        let node = try await connected(gateway)
        _ = try await node.client.event("voicewake.routing.changed")
        let first = try NodeEventParams.voiceTranscript(VoiceTranscriptEvent(text: "one", sessionKey: "main"))
        _ = try await node.client.call("node.event", try WireJSON(encoding: first))
        #expect(try await node.client.nextIfAny(timeout: .milliseconds(100)) == nil)

        _ = try await node.client.call(
            "node.event", try WireJSON(encoding: try NodeEventParams.chatSubscribe(sessionKey: "main")))
        await gateway.enqueueChatRun([.agentText("Sure"), .delta("Sure"), .final("Sure, done.")])
        let second = try NodeEventParams.voiceTranscript(VoiceTranscriptEvent(text: "two", sessionKey: "main"))
        _ = try await node.client.call("node.event", try WireJSON(encoding: second))
        let delta = try ChatEvent(json: try await node.client.event("chat")["payload"])
        #expect(delta.chatState == .delta)
        #expect(delta.runId.hasPrefix("voice-"))
        let final = try ChatEvent(json: try await node.client.event("chat")["payload"])
        #expect(final.chatState == .final)
        #expect(final.runId == delta.runId)
        #expect(final.text == "Sure, done.")
        #expect(final.sessionKey == "main")
        let agentFrames = await gateway.recordedFrames(connection: node.client.connection).filter {
            $0.event == "agent"
        }
        #expect(agentFrames.isEmpty)

        _ = try await node.client.call(
            "node.event", try WireJSON(encoding: try NodeEventParams.chatUnsubscribe(sessionKey: "main")))
        let third = try NodeEventParams.voiceTranscript(VoiceTranscriptEvent(text: "three", sessionKey: "main"))
        _ = try await node.client.call("node.event", try WireJSON(encoding: third))
        #expect(try await node.client.nextIfAny(timeout: .milliseconds(100)) == nil)
    }
}
