import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// Checklist items 25–28 and 32 (protocol.md §10; talk.md §2, §11.1).
@Suite(.timeLimit(.minutes(1))) struct InvokeTests {
    /// Answers the next invoke request with `result(request)` built as params.
    func answer(_ client: WireClient, _ build: (WireJSON) -> WireJSON) async throws -> (
        request: WireJSON, response: WireJSON
    ) {
        let event = try await client.event("node.invoke.request")
        let request = try #require(event["payload"])
        let response = try await client.call("node.invoke.result", build(request))
        return (request, response)
    }

    static func result(_ request: WireJSON, payloadJSON: String) -> WireJSON {
        [
            "id": request["id"] ?? .null, "nodeId": request["nodeId"] ?? .null, "ok": true,
            "payloadJSON": .string(payloadJSON),
        ]
    }

    @Test(arguments: [
        "talk.config", "talk.speak", "tts.speak", "tts.convert", "voicewake.get", "chat.send", "node.list",
    ])
    func nodeRoleCallsOutsideTheAllowlistAreRefusedAndNotExecuted(method: String) async throws {  // 25
        let (gateway, _) = Fixture.gateway()
        let result = try await connected(gateway)
        let response = try await result.client.call(method, ["text": "hi"])
        #expect(response["ok"]?.boolValue == false)
        #expect(response["error"]?["code"] == "INVALID_REQUEST")
        #expect(response["error"]?["message"] == "unauthorized role: node")
        let executed = await gateway.observedEvents.contains {
            if case .operatorCall = $0 { return true }
            return false
        }
        #expect(!executed)
        #expect(
            await gateway.observedEvents.contains(
                .callRefused(connection: result.client.connection, method: method, code: "INVALID_REQUEST")))
    }

    @Test func operatorsCannotCallNodeMethods() async throws {  // 25 (role separation)
        let (gateway, _) = Fixture.gateway()
        let op = try await connected(gateway, ConnectBuilder.operator(Fixture.identity(70)))
        let response = try await op.client.call("node.invoke.result", ["id": "i", "nodeId": "n", "ok": true])
        #expect(response["error"]?["message"] == "unauthorized role: operator")
    }

    @Test(arguments: [TestInvokeParams.null, .json("{}"), .absent, .json(#"{"captureId":"x","extra":1}"#)])
    func invokeRequestsCarryTheDocumentedFieldsAndNoSeq(params: TestInvokeParams) async throws {  // 26
        let (gateway, _) = Fixture.gateway()
        let node = try await connected(gateway)
        let invoke = Task {
            await gateway.invoke(
                nodeId: Fixture.deviceId, command: "talk.ptt.start", params: params, idempotencyKey: "k-1")
        }
        let event = try await node.client.event("node.invoke.request")
        #expect(event["seq"] == nil)
        let payload = try #require(event["payload"]?.objectValue)
        #expect(payload["nodeId"] == .string(Fixture.deviceId))
        #expect(payload["command"] == "talk.ptt.start")
        #expect(payload["timeoutMs"]?.intValue == 15_000)
        #expect(payload["idempotencyKey"] == "k-1")
        #expect(payload["id"]?.nonEmptyStringValue != nil)
        switch params {
        case .null: #expect(payload["paramsJSON"] == .null)
        case .absent: #expect(!payload.keys.contains("paramsJSON"))
        case .json(let text): #expect(payload["paramsJSON"] == .string(text))
        }
        let decoded = try NodeInvokeRequest(json: event["payload"])
        #expect(decoded.command == "talk.ptt.start")
        _ = try await node.client.call(
            "node.invoke.result", Self.result(.object(payload), payloadJSON: #"{"captureId":"c-1"}"#))
        #expect(await invoke.value == .ok(payloadJSON: #"{"captureId":"c-1"}"#, payload: nil))
    }

    @Test func invokeResultsAreValidatedAsClosed() async throws {  // 27
        let (gateway, _) = Fixture.gateway()
        let node = try await connected(gateway)
        let invoke = Task { await gateway.invoke(nodeId: Fixture.deviceId, command: "talk.ptt.stop") }
        let request = try #require(try await node.client.event("node.invoke.request")["payload"])
        let base: WireJSON = ["id": request["id"] ?? .null, "nodeId": request["nodeId"] ?? .null, "ok": false]
        let retryable = try await node.client.call(
            "node.invoke.result",
            base.setting(["error"], to: ["code": "UNAVAILABLE", "message": "x", "retryable": true]))
        #expect(retryable["error"]?["code"] == "INVALID_REQUEST")
        #expect(
            retryable["error"]?["message"]
                == "invalid node.invoke.result params: at /error: unexpected property 'retryable'")
        let extra = try await node.client.call("node.invoke.result", base.setting(["status"], to: "done"))
        #expect(
            extra["error"]?["message"] == "invalid node.invoke.result params: at root: unexpected property 'status'")
        let mismatch = try await node.client.call("node.invoke.result", base.setting(["nodeId"], to: "someone-else"))
        #expect(mismatch["error"]?["message"] == "nodeId mismatch")
        let unknown = try await node.client.call("node.invoke.result", base.setting(["id"], to: "no-such-invoke"))
        #expect(unknown["payload"] == ["ok": true, "ignored": true])
        let real = try await node.client.call(
            "node.invoke.result", base.setting(["error"], to: ["code": "UNAVAILABLE", "message": "MIC_BUSY: held"]))
        #expect(real["payload"] == ["ok": true])
        #expect(await invoke.value == .failed(code: "UNAVAILABLE", message: "MIC_BUSY: held"))
        // The invalid attempts did not resolve the invoke: only the valid one did.
        let results = await gateway.observedEvents.compactMap { event -> TestInvokeResult? in
            if case .invokeResult(let result) = event { return result }
            return nil
        }
        #expect(results.map(\.matched) == [false, true])
    }

    @Test func invokesTimeOutAndLateResultsAreIgnored() async throws {  // 28
        let (gateway, _) = Fixture.gateway()
        let node = try await connected(gateway)
        let started = ContinuousClock.now
        let invoke = Task { await gateway.invoke(nodeId: Fixture.deviceId, command: "talk.ptt.once", timeoutMs: 80) }
        let request = try #require(try await node.client.event("node.invoke.request")["payload"])
        #expect(request["timeoutMs"]?.intValue == 80)
        #expect(await invoke.value == .timeout)
        #expect(ContinuousClock.now - started >= .milliseconds(80))
        let late = try await node.client.call(
            "node.invoke.result",
            Self.result(request, payloadJSON: #"{"captureId":"c","transcript":null,"status":"empty"}"#))
        #expect(late["payload"] == ["ok": true, "ignored": true])
        let talkEvents = await gateway.observedEvents.filter {
            if case .talkEvent = $0 { return true }
            return false
        }
        #expect(talkEvents.isEmpty)
    }

    @Test func pttResultsBecomeTalkEvents() async throws {  // 32
        let (gateway, _) = Fixture.gateway()
        let node = try await connected(gateway)
        let watcher = try await connected(gateway, ConnectBuilder.operator(Fixture.identity(50)))
        let cases: [(String, String, String, Bool)] = [
            ("talk.ptt.start", #"{"captureId":"c-1"}"#, "capture.started", false),
            (
                "talk.ptt.stop", #"{"captureId":"c-1","transcript":"lights on","status":"queued"}"#, "capture.stopped",
                true
            ),
            (
                "talk.ptt.cancel", #"{"captureId":"c-2","transcript":null,"status":"cancelled"}"#, "capture.cancelled",
                true
            ),
            ("talk.ptt.once", #"{"captureId":"c-3","transcript":null,"status":"empty"}"#, "capture.once", true),
        ]
        for (command, payloadJSON, type, final) in cases {
            let invoke = Task { await gateway.invoke(nodeId: Fixture.deviceId, command: command) }
            _ = try await answer(node.client) { Self.result($0, payloadJSON: payloadJSON) }
            #expect(await invoke.value == .ok(payloadJSON: payloadJSON, payload: nil))
            let event = try #require(try await watcher.client.event("talk.event")["payload"])
            let captureId = try WireJSON(parsing: payloadJSON)["captureId"]?.stringValue ?? ""
            #expect(event["sessionId"] == .string("node:\(Fixture.deviceId):talk:\(captureId)"))
            #expect(event["type"] == .string(type))
            #expect(event["final"] == .bool(final))
            #expect(event["mode"] == "stt-tts")
            #expect(event["transport"] == "managed-room")
            #expect(event["brain"] == "agent-consult")
            #expect(event["payload"]?["command"] == .string(command))
            #expect(event["payload"]?["nodeId"] == .string(Fixture.deviceId))
        }
        let harness = await gateway.observedEvents.compactMap { event -> String? in
            if case .talkEvent(let payload) = event { return payload["type"]?.stringValue }
            return nil
        }
        #expect(harness == ["capture.started", "capture.stopped", "capture.cancelled", "capture.once"])
        // Without a captureId the gateway cannot derive a session: no talk.event.
        let invoke = Task { await gateway.invoke(nodeId: Fixture.deviceId, command: "talk.ptt.stop") }
        _ = try await answer(node.client) { Self.result($0, payloadJSON: #"{"status":"idle"}"#) }
        _ = await invoke.value
        #expect(try await watcher.client.nextIfAny(timeout: .milliseconds(50)) == nil)
    }
}
