import Foundation
import Testing

@testable import ClawTalkProtocol

@Suite("Node runtime")
struct NodeTests {
    static let nodeId = Vector.deviceId

    struct ParamsCase: Sendable, CustomTestStringConvertible {
        var payload: String
        var params: [String: WireJSON]?  // nil: INVALID_REQUEST
        var testDescription: String { payload }
    }

    @Test(
        "invoke params: null/absent/empty mean {}, objects pass, the rest is INVALID_REQUEST",
        arguments: [
            ParamsCase(payload: #"{"id":"i","nodeId":"n","command":"talk.ptt.start","paramsJSON":null}"#, params: [:]),
            ParamsCase(payload: #"{"id":"i","nodeId":"n","command":"talk.ptt.start"}"#, params: [:]),
            ParamsCase(payload: #"{"id":"i","nodeId":"n","command":"talk.ptt.start","paramsJSON":""}"#, params: [:]),
            ParamsCase(payload: #"{"id":"i","nodeId":"n","command":"talk.ptt.start","paramsJSON":"  "}"#, params: [:]),
            ParamsCase(payload: #"{"id":"i","nodeId":"n","command":"talk.ptt.start","paramsJSON":"{}"}"#, params: [:]),
            ParamsCase(
                payload: #"{"id":"i","nodeId":"n","command":"talk.ptt.start","paramsJSON":"null"}"#, params: [:]),
            ParamsCase(
                payload:
                    #"{"id":"i","nodeId":"n","command":"talk.ptt.start","paramsJSON":"{\"captureId\":\"c\",\"x\":1}"}"#,
                params: ["captureId": "c", "x": 1]),
            ParamsCase(payload: #"{"id":"i","nodeId":"n","command":"talk.ptt.start","paramsJSON":"[1]"}"#, params: nil),
            ParamsCase(
                payload: #"{"id":"i","nodeId":"n","command":"talk.ptt.start","paramsJSON":"\"s\""}"#, params: nil),
            ParamsCase(
                payload: #"{"id":"i","nodeId":"n","command":"talk.ptt.start","paramsJSON":"{oops"}"#, params: nil),
            ParamsCase(
                payload: #"{"id":"i","nodeId":"n","command":"talk.ptt.start","paramsJSON":{"a":1}}"#, params: nil),
            ParamsCase(payload: #"{"id":"i","nodeId":"n","command":"talk.ptt.start","paramsJSON":5}"#, params: nil),
        ])
    func invokeParams(testCase: ParamsCase) throws {
        let request = try NodeInvokeRequest(json: WireJSON(parsing: testCase.payload))
        #expect(request.id == "i")
        #expect(request.talkCommand == .start)
        if let expected = testCase.params {
            #expect(try request.params() == expected)
        } else {
            #expect {
                try request.params()
            } throws: { error in
                guard let error = error as? NodeError else { return false }
                return error.code == "INVALID_REQUEST" && error.message.hasPrefix("INVALID_REQUEST: ")
            }
        }
    }

    @Test(
        "invoke timeouts: 0, negative or absent mean 30000",
        arguments: [
            (#""timeoutMs":15000"#, 15_000), (#""timeoutMs":0"#, 30_000), (#""timeoutMs":-5"#, 30_000),
            (#""x":1"#, 30_000),
            (#""timeoutMs":"100""#, 30_000), (#""timeoutMs":1.5"#, 30_000),
        ])
    func invokeTimeout(field: String, expected: Int) throws {
        let request = try NodeInvokeRequest(
            json: WireJSON(parsing: #"{"id":"i","nodeId":"n","command":"c",\#(field)}"#))
        #expect(request.effectiveTimeoutMs == expected)
    }

    @Test("invoke request: required id and command, lenient extras")
    func invokeRequired() throws {
        let full = try NodeInvokeRequest(
            json: WireJSON(
                parsing: #"{"id":"i","nodeId":"n","command":"c","idempotencyKey":"k","sessionKey":"s","future":1}"#))
        #expect(full.idempotencyKey == "k")
        #expect(full.nodeId == "n")
        for payload in [
            #"{"nodeId":"n","command":"c"}"#, #"{"id":"i","nodeId":"n"}"#, #"{"id":"","command":"c"}"#, #"[]"#,
        ] {
            #expect(throws: ProtocolError.self) { try NodeInvokeRequest(json: WireJSON(parsing: payload)) }
        }
    }

    @Test("golden: protocol.md §10.3 success result")
    func goldenSuccess() throws {
        let request = NodeInvokeRequest(
            id: "4f0e7c2a-1b3d-4e5f-8a9b-0c1d2e3f4a5b", nodeId: Self.nodeId, command: "talk.ptt.stop")
        let result = try NodeInvokeResult.success(
            for: request, payload: TalkPTTResult(captureId: "c-12", transcript: "turn on the lights", status: .queued))
        let frame = try result.requestFrame(id: "r-1")
        let encoded = try WireJSON(parsing: frame.encodedText())
        let golden = try Fixture.json("node-invoke-result-ok")
        #expect(encoded.expandingEmbeddedJSON() == golden.expandingEmbeddedJSON())
        #expect(Set(try #require(encoded["params"]?.objectValue).keys) == ["id", "nodeId", "ok", "payloadJSON"])
        #expect(encoded["params"]?["payload"] == nil)
    }

    @Test("golden: protocol.md §10.3 error result, closed error object")
    func goldenFailure() throws {
        let request = NodeInvokeRequest(
            id: "9a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", nodeId: Self.nodeId, command: "talk.ptt.start")
        let result = NodeInvokeResult.failure(for: request, error: .microphonePermissionRequired())
        let encoded = try WireJSON(parsing: try result.requestFrame(id: "r-2").encodedText())
        #expect(encoded == (try Fixture.json("node-invoke-result-error")))
        #expect(Set(try #require(encoded["params"]?.objectValue).keys) == ["id", "nodeId", "ok", "error"])
        #expect(Set(try #require(encoded["params"]?["error"]?.objectValue).keys) == ["code", "message"])
        #expect(!encoded.containsNull)
    }

    @Test("result and error types hold no keys beyond the closed schema")
    func resultClosed() {
        let labels = Set(
            Mirror(reflecting: NodeInvokeResult(id: "i", nodeId: "n", ok: true)).children.compactMap(\.label))
        #expect(labels == ["id", "nodeId", "ok", "payloadJSON", "error"])
        let errorLabels = Set(
            Mirror(reflecting: NodeInvokeResult.ErrorBody(code: nil, message: nil)).children.compactMap(\.label))
        #expect(errorLabels == ["code", "message"])
    }

    @Test(
        "wire error messages are exact",
        arguments: [
            (
                NodeError.unsupportedCommand("camera.snap"), "INVALID_REQUEST",
                "INVALID_REQUEST: unsupported command camera.snap"
            ),
            (NodeError.busy, "UNAVAILABLE", "UNAVAILABLE: node busy, retry"),
            (NodeError.timedOut, "UNAVAILABLE", "UNAVAILABLE: node invoke timed out"),
            (NodeError.notReady(), "NODE_NOT_READY", "NODE_NOT_READY: audio engine starting"),
            (NodeError.pttCancelled, "UNAVAILABLE", "PTT_CANCELLED: push-to-talk start was cancelled"),
            (
                NodeError.microphonePermissionRequired(), "UNAVAILABLE",
                "MICROPHONE_PERMISSION_REQUIRED: no capture device could be opened"
            ),
            (NodeError.micBusy("held by another app"), "UNAVAILABLE", "MIC_BUSY: held by another app"),
            (NodeError.sttUnavailable("whisper not running"), "UNAVAILABLE", "STT_UNAVAILABLE: whisper not running"),
            (
                NodeError.invalidRequest("paramsJSON must be a JSON object"), "INVALID_REQUEST",
                "INVALID_REQUEST: paramsJSON must be a JSON object"
            ),
        ])
    func errorMessages(error: NodeError, code: String, message: String) {
        #expect(error.code == code)
        #expect(error.message == message)
        #expect(error.knownCode?.rawValue == code)
        #expect(error.messageCode == String(message.prefix { $0 != ":" }))
    }

    @Test("golden: PTT result payloads, transcript always present")
    func pttGoldens() throws {
        let start = try WireJSON(encoding: TalkPTTStartResult(captureId: "9d3c1c2e-5f7a-4b1e-9a55-0c1d2e3f4a5b"))
        #expect(start == (try Fixture.json("ptt-start")))
        let stop = try WireJSON(
            encoding: TalkPTTResult(
                captureId: "9d3c1c2e-5f7a-4b1e-9a55-0c1d2e3f4a5b", transcript: "  what's on my calendar \n",
                status: .queued))
        #expect(stop == (try Fixture.json("ptt-stop-queued")))
        let idle = TalkPTTResult(captureId: "2b7f0e4d-1c3a-4e9b-8f6d-7a5c4b3e2d1f", transcript: nil, status: .idle)
        let idleJSON = try WireJSON(encoding: idle)
        #expect(idleJSON == (try Fixture.json("ptt-idle")))
        #expect(idleJSON.objectValue?["transcript"] == .null)
        // Through payloadJSON text too.
        let result = try NodeInvokeResult.success(
            for: NodeInvokeRequest(id: "i", nodeId: "n", command: "talk.ptt.cancel"), payload: idle)
        #expect(try #require(result.payloadJSON).contains(#""transcript":null"#))
    }

    @Test("empty or blank transcripts become null")
    func blankTranscript() throws {
        for transcript in ["", "   ", "\n\t"] {
            let result = TalkPTTResult(captureId: "c", transcript: transcript, status: .empty)
            #expect(result.transcript == nil)
            #expect(try WireJSON(encoding: result)["transcript"] == .null)
        }
    }

    @Test("talk vocabularies")
    func vocabularies() {
        #expect(
            TalkCommand.allCases.map(\.rawValue) == [
                "talk.ptt.start", "talk.ptt.stop", "talk.ptt.cancel", "talk.ptt.once",
            ])
        #expect(
            Set(TalkPTTStatus.allCases.map(\.rawValue)) == ["queued", "empty", "offline", "idle", "cancelled", "busy"])
        #expect(TalkPTTStatus(rawValue: "not_queued") == nil)
    }

    @Test("golden: voice.transcript node event")
    func voiceTranscriptGolden() throws {
        let event = VoiceTranscriptEvent(
            text: "turn on the lights", sessionKey: "main", eventId: "6f5e4d3c-2b1a-4f9e-8d7c-6b5a4f3e2d1c")
        let frame = try NodeEventParams.voiceTranscript(event).requestFrame(id: "3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c7d")
        let encoded = try WireJSON(parsing: frame.encodedText())
        let golden = try Fixture.json("node-event-voice-transcript")
        #expect(encoded.expandingEmbeddedJSON() == golden.expandingEmbeddedJSON())
        #expect(Set(try #require(encoded["params"]?.objectValue).keys) == ["event", "payloadJSON"])
    }

    @Test("voice.transcript text is cut to 20000 UTF-16 units without splitting a pair")
    func transcriptTruncation() {
        let plain = VoiceTranscriptEvent(text: String(repeating: "a", count: 20_005), sessionKey: "main")
        #expect(plain.text.utf16.count == 20_000)
        // A surrogate pair straddling the limit is dropped whole.
        let straddling = String(repeating: "a", count: 19_999) + "😀" + "b"
        let cut = VoiceTranscriptEvent(text: straddling, sessionKey: "main")
        #expect(cut.text.utf16.count == 19_999)
        #expect(cut.text.unicodeScalars.allSatisfy { $0 == "a" })
        let fits = VoiceTranscriptEvent(text: String(repeating: "a", count: 19_998) + "😀", sessionKey: "main")
        #expect(fits.text.utf16.count == 20_000)
        #expect(fits.text.hasSuffix("😀"))
        #expect(WireID.isLowercaseUUIDv4(plain.eventId))
    }

    @Test("node events: chat.subscribe, unsubscribe, presence")
    func nodeEvents() throws {
        let subscribe = try NodeEventParams.chatSubscribe(sessionKey: "main")
        #expect(subscribe.event == "chat.subscribe")
        #expect(subscribe.payloadJSON == #"{"sessionKey":"main"}"#)
        #expect(try NodeEventParams.chatUnsubscribe(sessionKey: "s").event == "chat.unsubscribe")
        let presence = try NodeEventParams.presenceAlive(NodePresenceAlive(trigger: .connect))
        #expect(presence.event == "node.presence.alive")
        #expect(presence.payloadJSON == #"{"trigger":"connect"}"#)
        let timed = try NodeEventParams.presenceAlive(NodePresenceAlive(trigger: .silentPush, sentAtMs: 5))
        #expect(timed.payloadJSON == #"{"sentAtMs":5,"trigger":"silent_push"}"#)
        let frame = try subscribe.requestFrame(id: "x")
        #expect(frame.method == "node.event")
    }

    @Test("node.event result: new and old gateways")
    func nodeEventResult() throws {
        let new = NodeEventResult(json: [
            "ok": true, "event": "voice.transcript", "handled": false, "reason": "duplicate",
        ])
        #expect(new == NodeEventResult(ok: true, event: "voice.transcript", handled: false, reason: "duplicate"))
        #expect(NodeEventResult(json: ["ok": true]) == NodeEventResult(ok: true))
    }

    @Test("node.invoke.cancel payload")
    func invokeCancel() throws {
        let cancel = try NodeInvokeCancel(json: ["invokeId": "i", "nodeId": "n"])
        #expect(cancel == NodeInvokeCancel(invokeId: "i", nodeId: "n"))
        #expect(throws: ProtocolError.self) { try NodeInvokeCancel(json: ["nodeId": "n"]) }
    }
}
