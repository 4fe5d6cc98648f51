import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// Checklist items 40, 41 and 43 and the talk.md §11 fixtures (operator connection).
@Suite(.timeLimit(.minutes(1))) struct OperatorTests {
    func operatorClient(
        _ gateway: TestGateway, scopes: [String] = ["operator.read", "operator.write"]
    ) async throws -> WireClient {
        var builder = ConnectBuilder.operator(Fixture.identity(60))
        builder.scopes = scopes
        return try await connected(gateway, builder).client
    }

    struct ScopeRow: Sendable, CustomStringConvertible {
        let scopes: [String]
        let method: String
        let params: WireJSON
        let missing: String?
        var description: String { "\(method) with \(scopes)" }
    }

    /// `talk.session.create` params the test gateway's relay accepts.
    static let relay: WireJSON = ["mode": "transcription", "transport": "gateway-relay"]

    static let scopeRows: [ScopeRow] = [
        ScopeRow(scopes: ["operator.read"], method: "talk.config", params: [:], missing: nil),
        ScopeRow(scopes: ["operator.read"], method: "voicewake.get", params: [:], missing: nil),
        ScopeRow(scopes: ["operator.read"], method: "chat.history", params: ["sessionKey": "main"], missing: nil),
        ScopeRow(scopes: ["operator.read"], method: "tts.status", params: [:], missing: nil),
        ScopeRow(scopes: ["operator.read"], method: "tts.providers", params: [:], missing: nil),
        ScopeRow(
            scopes: ["operator.read"], method: "chat.send",
            params: ["sessionKey": "main", "message": "hi", "idempotencyKey": "k"], missing: "operator.write"),
        ScopeRow(scopes: ["operator.read"], method: "agent", params: ["message": "hi"], missing: "operator.write"),
        ScopeRow(scopes: ["operator.read"], method: "talk.speak", params: ["text": "hi"], missing: "operator.talk"),
        ScopeRow(scopes: ["operator.read"], method: "tts.speak", params: ["text": "hi"], missing: "operator.write"),
        ScopeRow(
            scopes: ["operator.read"], method: "voicewake.set", params: ["triggers": ["hey"]], missing: "operator.write"
        ),
        ScopeRow(scopes: ["operator.read"], method: "talk.mode", params: ["enabled": true], missing: "operator.talk"),
        ScopeRow(scopes: ["operator.read"], method: "talk.session.create", params: relay, missing: "operator.talk"),
        ScopeRow(
            scopes: ["operator.read"], method: "talk.session.close", params: ["sessionId": "s"],
            missing: "operator.talk"
        ),
        // protocol.md §14: operator.write satisfies operator.talk.
        ScopeRow(scopes: ["operator.write"], method: "talk.speak", params: ["text": "hi"], missing: nil),
        ScopeRow(scopes: ["operator.write"], method: "talk.mode", params: ["enabled": true], missing: nil),
        ScopeRow(scopes: ["operator.write"], method: "talk.session.create", params: relay, missing: nil),
        // operator.talk on its own grants the talk methods, not what needs operator.write.
        ScopeRow(
            scopes: ["operator.read", "operator.talk"], method: "talk.speak", params: ["text": "hi"], missing: nil),
        ScopeRow(
            scopes: ["operator.read", "operator.talk"], method: "talk.mode", params: ["enabled": true], missing: nil),
        ScopeRow(
            scopes: ["operator.read", "operator.talk"], method: "chat.send",
            params: ["sessionKey": "main", "message": "hi", "idempotencyKey": "k"], missing: "operator.write"),
        ScopeRow(
            scopes: ["operator.read", "operator.talk"], method: "tts.speak", params: ["text": "hi"],
            missing: "operator.write"),
        ScopeRow(scopes: ["operator.write"], method: "talk.config", params: [:], missing: nil),
        ScopeRow(
            scopes: ["operator.read", "operator.write"], method: "talk.config", params: ["includeSecrets": true],
            missing: "operator.talk.secrets"),
        ScopeRow(
            scopes: ["operator.read", "operator.talk.secrets"], method: "talk.config", params: ["includeSecrets": true],
            missing: nil),
        ScopeRow(
            scopes: ["operator.read", "operator.write"], method: "talk.speak", params: ["text": "hi"], missing: nil),
    ]

    @Test(arguments: scopeRows)
    func eachMethodNeedsItsScope(row: ScopeRow) async throws {  // 40
        let (gateway, _) = Fixture.gateway()
        let client = try await operatorClient(gateway, scopes: row.scopes)
        let response = try await client.call(row.method, row.params)
        if let missing = row.missing {
            #expect(response["error"]?["code"] == "FORBIDDEN")
            #expect(response["error"]?["message"] == .string("missing scope: \(missing)"))
            #expect(
                response["error"]?["details"] == [
                    "code": "MISSING_SCOPE", "missingScope": .string(missing), "requiredScopes": [.string(missing)],
                ])
            #expect(try ErrorShape(json: try #require(response["error"])).isMissingScope)
        } else {
            #expect(response["ok"] == true)
        }
    }

    @Test func talkModeCanRequireAdmin() async throws {  // 40
        let (gateway, _) = Fixture.gateway { $0.talkModeRequiresAdmin = true }
        let client = try await operatorClient(gateway)
        let response = try await client.call("talk.mode", ["enabled": true])
        #expect(response["error"]?["details"]?["missingScope"] == "operator.admin")
    }

    @Test func voiceWakeRoutingSetIsGoneAndRoutingIsReadOnly() async throws {  // protocol.md §14
        let (gateway, _) = Fixture.gateway()
        var builder = ConnectBuilder.operator(Fixture.identity(62))
        builder.scopes = ["operator.read", "operator.write"]
        let result = try await connected(gateway, builder)
        let methods = try #require(result.hello?["features"]?["methods"]?.stringArrayValue)
        #expect(!methods.contains("voicewake.routing.set"))
        #expect(methods.contains("voicewake.routing.get"))
        let set = try await result.client.call("voicewake.routing.set", ["config": ["version": 1]])
        #expect(set["error"]?["code"] == "INVALID_REQUEST")
        #expect(set["error"]?["message"] == "unknown method: voicewake.routing.set")
        let get = try await result.client.call("voicewake.routing.get", [:])
        #expect(get["ok"] == true)
        #expect(get["payload"]?["config"]?["version"] == 1)
    }

    @Test func droppedMethodsAreUnlistedAndUnknown() async throws {  // 41
        let dropped = ["talk.speak", "tts.speak", "voicewake.routing.get", "talk.session.create"]
        let (gateway, _) = Fixture.gateway { config in config.methods.removeAll { dropped.contains($0) } }
        var builder = ConnectBuilder.operator(Fixture.identity(61))
        builder.scopes = ["operator.read", "operator.write"]
        let result = try await connected(gateway, builder)
        let methods = try #require(result.hello?["features"]?["methods"]?.stringArrayValue)
        #expect(Set(methods).isDisjoint(with: dropped))
        #expect(methods.contains("talk.config"))
        let response = try await result.client.call("talk.speak", ["text": "hi"])
        #expect(response["error"]?["code"] == "INVALID_REQUEST")
        #expect(response["error"]?["message"] == "unknown method: talk.speak")
    }

    @Test func aTalkSpeakClipOver16MiBArrivesIntact() async throws {  // 43
        let (gateway, _) = Fixture.gateway()
        let client = try await operatorClient(gateway)
        let clip = TestClip.large(byteCount: 17 * 1_048_576)
        await gateway.enqueueReply(.clip(clip), for: "talk.speak")
        let id = try client.request("talk.speak", ["text": "a long reply", "outputFormat": "pcm_24000"])
        let frames = await gateway.recordedFrames(connection: client.connection)
        _ = frames
        let response = try await client.response(id, timeout: .seconds(20))
        let size = await gateway.recordedFrames(connection: client.connection).last?.text.utf8.count ?? 0
        #expect(size > 16 * 1_048_576)
        #expect(size < 26_214_400)
        let result = try TalkSpeakResult(json: response["payload"])
        #expect(result.audioData() == Data(clip.audio))
        #expect(result.outputFormat == "pcm_24000")
    }

    @Test func chatSendReturnsARunIdThenScriptedEvents() async throws {  // talk.md §11.2
        let (gateway, _) = Fixture.gateway()
        let client = try await operatorClient(gateway)
        await gateway.enqueueChatRun([
            .agentText("It is"), .delta("It is"), .pause(ms: 20), .final("It is sunny."), .agentEnd,
        ])
        let params = try WireJSON(encoding: ChatSendParams(sessionKey: "main", message: "weather?"))
        let response = try await client.call("chat.send", params)
        let runId = try #require(ChatSendResult(json: response["payload"]).runId)
        let agent = try AgentEvent(json: try await client.event("agent")["payload"])
        #expect(agent.runId == runId)
        #expect(agent.assistantText == "It is")
        let delta = try ChatEvent(json: try await client.event("chat")["payload"])
        #expect(delta.runId == runId && delta.chatState == .delta)
        let final = try ChatEvent(json: try await client.event("chat")["payload"])
        #expect(final.chatState == .final && final.text == "It is sunny.")
        let end = try AgentEvent(json: try await client.event("agent")["payload"])
        #expect(end.stream == "lifecycle")
        let history = try await client.call("chat.history", ["sessionKey": "main", "limit": 2])
        let messages = try #require(history["payload"]?["messages"]?.arrayValue)
        #expect(messages.map { $0["role"] } == ["user", "assistant"])
        #expect(messages.last?["content"]?[0]?["text"] == "It is sunny.")
    }

    @Test(arguments: [TestGatewayConfiguration.ChatDeltaForm.cumulative, .marked])
    // talk.md §4.3
    func aRestartedReplyIsSentInTheChosenForm(form: TestGatewayConfiguration.ChatDeltaForm) async throws {
        let (gateway, _) = Fixture.gateway { $0.chatDeltaForm = form }
        let client = try await operatorClient(gateway)
        await gateway.enqueueChatRun([
            .delta("Let me"), .agentText("Let me"), .delta("Let me check."), .agentText("Let me check."),
            .delta("It is sunny."), .agentText("It is sunny."),
        ])
        _ = try await client.call(
            "chat.send", try WireJSON(encoding: ChatSendParams(sessionKey: "main", message: "weather?")))
        var chat: [ChatEvent] = []
        var agent: [AgentEvent] = []
        while chat.count + agent.count < 6 {
            let frame = try await client.nextFrame()
            if frame["event"] == "chat" { chat.append(try ChatEvent(json: frame["payload"])) }
            if frame["event"] == "agent" { agent.append(try AgentEvent(json: frame["payload"])) }
        }
        // Texts stay cumulative either way; a restart is a text that does not extend the last one.
        #expect(chat.map(\.text) == ["Let me", "Let me check.", "It is sunny."])
        #expect(agent.map(\.assistantText) == ["Let me", "Let me check.", "It is sunny."])
        switch form {
        case .cumulative:
            #expect(chat.allSatisfy { $0.deltaText == nil && $0.replace == nil })
            #expect(agent.allSatisfy { $0.data.delta == nil && $0.data.replace == nil })
        case .marked:
            #expect(chat.map(\.deltaText) == ["Let me", " check.", "It is sunny."])
            #expect(chat.map(\.replace) == [nil, nil, true])
            #expect(agent.map(\.data.delta) == ["Let me", " check.", "It is sunny."])
            #expect(agent.map(\.data.replace) == [nil, nil, true])
        }
    }

    @Test(arguments: [
        [ChatScriptStep.aborted], [.error("model overloaded")], [],
    ])
    func abortedErroredAndSilentRuns(steps: [ChatScriptStep]) async throws {  // talk.md §11.2
        let (gateway, _) = Fixture.gateway()
        let client = try await operatorClient(gateway)
        await gateway.enqueueChatRun(steps)
        let response = try await client.call(
            "chat.send", try WireJSON(encoding: ChatSendParams(sessionKey: "main", message: "x")))
        #expect(ChatSendResult(json: response["payload"]).runId != nil)
        if steps.isEmpty {
            #expect(try await client.nextIfAny(timeout: .milliseconds(100)) == nil)
            return
        }
        let event = try ChatEvent(json: try await client.event("chat")["payload"])
        if case .error(let message) = steps[0] {
            #expect(event.chatState == .error && event.errorMessage == message)
        } else {
            #expect(event.chatState == .aborted && event.message == nil)
        }
    }

    @Test func voiceWakeTriggersArePushedOnNodeConnectAndOnChange() async throws {  // talk.md §11.4
        let (gateway, _) = Fixture.gateway()
        let node = try await connected(gateway)
        let initial = try VoiceWakeTriggers(json: try await node.client.event("voicewake.changed")["payload"])
        #expect(initial.triggers == VoiceWakeTriggers.defaults)
        let routing = try await node.client.event("voicewake.routing.changed")
        #expect(routing["payload"]?["config"]?["version"] == 1)
        let op = try await operatorClient(gateway)
        let set = try await op.call("voicewake.set", ["triggers": ["  hey claw ", "", "computer"]])
        #expect(set["payload"] == ["triggers": ["hey claw", "computer"]])
        let pushed = try VoiceWakeTriggers(json: try await node.client.event("voicewake.changed")["payload"])
        #expect(pushed.triggers == ["hey claw", "computer"])
        #expect(try await op.call("voicewake.get", nil)["payload"] == ["triggers": ["hey claw", "computer"]])
        await gateway.setVoiceWakeRouting([
            "version": 1, "defaultTarget": ["mode": "current"], "routes": [], "updatedAtMs": 5,
        ])
        let changed = try await node.client.event("voicewake.routing.changed")
        #expect(changed["payload"]?["config"]?["updatedAtMs"] == 5)
    }

    @Test func talkModeRequestsAreBroadcastAndHarnessTogglesReachOperators() async throws {  // talk.md §11.5
        let (gateway, _) = Fixture.gateway()
        let op = try await operatorClient(gateway)
        let response = try await op.call(
            "talk.mode", try WireJSON(encoding: TalkModeParams(enabled: true, phase: .listening)))
        #expect(response["payload"] == ["enabled": true, "phase": "listening"])
        let echoed = try TalkModeEvent(json: try await op.event("talk.mode")["payload"])
        #expect(echoed.enabled && echoed.phase == "listening")
        await gateway.setTalkMode(enabled: false)
        let toggled = try await op.event("talk.mode")
        #expect(toggled["payload"]?["enabled"] == false)
        #expect(toggled["payload"]?["phase"] == .null)
        #expect(toggled["payload"]?["ts"]?.int64Value == Fixture.time)
    }

    static let clips: [TestClip] = [
        .pcm24000(), .mp3([0xFF, 0xFB, 0x90, 0x64, 0x00]), .oggOpus(Array("OggS".utf8) + [0, 2]), .unplayable(),
    ]

    @Test(arguments: clips)
    func talkSpeakReturnsScriptedClips(clip: TestClip) async throws {  // talk.md §11.6
        let (gateway, _) = Fixture.gateway()
        let op = try await operatorClient(gateway)
        await gateway.enqueueReply(.clip(clip), for: "talk.speak")
        let response = try await op.call("talk.speak", try WireJSON(encoding: TalkSpeakParams(text: "hello")))
        let result = try TalkSpeakResult(json: response["payload"])
        #expect(result.audioData() == Data(clip.audio))
        #expect(result.outputFormat == clip.outputFormat)
        #expect(result.mimeType == clip.mimeType)
        #expect(result.fileExtension == clip.fileExtension)
    }

    @Test(arguments: TalkSpeakFailureReason.allCases)
    func talkSpeakFailsWithEachUnavailableReason(reason: TalkSpeakFailureReason) async throws {  // talk.md §11.6
        let (gateway, _) = Fixture.gateway()
        let op = try await operatorClient(gateway)
        for eligible in [reason.isFallbackEligible, nil] {
            await gateway.enqueueReply(.talkSpeakUnavailable(reason, fallbackEligible: eligible), for: "talk.speak")
            let response = try await op.call("talk.speak", ["text": "hello"])
            let error = try ErrorShape(json: try #require(response["error"]))
            #expect(error.code == "UNAVAILABLE")
            #expect(error.reason == reason.rawValue)
            #expect(error.fallbackEligible == eligible)
        }
    }

    @Test func talkSpeakCanStaySilentAndRejectsUnknownParams() async throws {  // talk.md §11.6
        let (gateway, _) = Fixture.gateway()
        let op = try await operatorClient(gateway)
        await gateway.enqueueReply(.noReply, for: "talk.speak")
        let silent = try op.request("talk.speak", ["text": "hello"])
        await #expect(throws: ClientError.self) { _ = try await op.response(silent, timeout: .milliseconds(100)) }
        let invalid = try await op.call("talk.speak", ["text": "hello", "voice": "nova"])
        #expect(invalid["error"]?["message"] == "invalid talk.speak params: at root: unexpected property 'voice'")
        let empty = try await op.call("talk.speak", ["text": ""])
        #expect(empty["error"]?["code"] == "INVALID_REQUEST")
    }

    @Test func ttsSpeakChecksTheTextLengthFirst() async throws {  // talk.md §11.7
        let (gateway, _) = Fixture.gateway(
            script: {
                var script = OperatorScript()
                script.ttsMaxTextLength = 10
                return script
            }())
        let op = try await operatorClient(gateway)
        let tooLong = try await op.call("tts.speak", ["text": "eleven char"])
        #expect(tooLong["error"] == ["code": "INVALID_REQUEST", "message": "text too long"])
        let ok = try await op.call("tts.speak", ["text": "ten chars!"])
        #expect(try TalkSpeakResult(json: ok["payload"]).audioData()?.isEmpty == false)
    }

    @Test func talkConfigRedactsSecretsUnlessRequested() async throws {  // talk.md §11.7
        let (gateway, _) = Fixture.gateway()
        var builder = ConnectBuilder.operator(Fixture.identity(62))
        builder.scopes = ["operator.read", "operator.talk.secrets"]
        let op = try await connected(gateway, builder).client
        let redacted = try await op.call("talk.config", nil)
        let config = try TalkConfig(json: redacted["payload"])
        #expect(!config.hasAPIKey)
        #expect(
            redacted["payload"]?["config"]?["talk"]?["providers"]?["elevenlabs"]?["apiKey"] == "__OPENCLAW_REDACTED__")
        let secret = try await op.call("talk.config", ["includeSecrets": true])
        #expect(secret["payload"]?["config"]?["talk"]?["providers"]?["elevenlabs"]?["apiKey"] == "sk-test-0123456789")
    }
}
