import Foundation
import Testing

@testable import ClawTalkProtocol

@Suite("Operator methods")
struct OperatorTests {
    @Test("golden: chat.send request")
    func chatSendGolden() throws {
        let params = ChatSendParams(
            sessionKey: "main", message: "what's on my calendar", idempotencyKey: "1e2d3c4b-5a69-4788-9a0b-c1d2e3f4a5b6"
        )
        let frame = try RequestFrame(
            id: "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", method: OperatorMethod.chatSend.rawValue, encoding: params)
        #expect(try WireJSON(parsing: frame.encodedText()) == (try Fixture.json("chat-send")))
        #expect(WireID.isLowercaseUUIDv4(ChatSendParams(sessionKey: "s", message: "m").idempotencyKey))
    }

    @Test("chat.send result is lenient")
    func chatSendResult() {
        #expect(
            ChatSendResult(json: ["runId": "r1", "status": "started", "extra": 1])
                == ChatSendResult(runId: "r1", status: "started"))
        #expect(ChatSendResult(json: ["status": "ok"]).runId == nil)
        #expect(ChatSendResult(json: nil).runId == nil)
    }

    @Test("chat event: state, text extraction, string content")
    func chatEvent() throws {
        let event = try ChatEvent(
            json: WireJSON(
                parsing: #"""
                    {"runId":"r","sessionKey":"main","seq":3,"state":"final","message":{"role":"assistant","content":[
                      {"type":"text","text":"Hello "},{"type":"image","url":"x"},{"type":"text","text":"world."},{"text":"!"},7]}}
                    """#))
        #expect(event.chatState == .final)
        #expect(event.chatState?.isTerminal == true)
        #expect(event.seq == 3)
        #expect(event.message?.role == "assistant")
        #expect(event.text == "Hello world.!")

        let stringContent = try ChatEvent(json: [
            "runId": "r", "sessionKey": "s", "state": "delta", "message": ["role": "assistant", "content": "Hi"],
        ])
        #expect(stringContent.text == "Hi")
        #expect(stringContent.chatState?.isTerminal == false)

        let unknownState = try ChatEvent(json: ["runId": "r", "state": "paused"])
        #expect(unknownState.chatState == nil)
        #expect(unknownState.state == "paused")
        #expect(unknownState.text == "")

        #expect(throws: ProtocolError.self) { try ChatEvent(json: ["state": "final"]) }
        #expect(throws: ProtocolError.self) { try ChatEvent(json: ["runId": "r"]) }
    }

    @Test("chat event: deltaText and replace of newer gateways (talk.md §4.3)")
    func chatEventRewriteMarks() throws {
        let marked = try ChatEvent(
            json: WireJSON(
                parsing: #"""
                    {"runId":"r","sessionKey":"main","seq":4,"state":"delta","deltaText":"It is sunny.","replace":true,
                     "message":{"role":"assistant","content":[{"type":"text","text":"It is sunny."}]}}
                    """#))
        #expect(marked.deltaText == "It is sunny.")
        #expect(marked.replace == true)
        let legacy = try ChatEvent(json: ["runId": "r", "state": "delta", "replace": "yes"])
        #expect(legacy.deltaText == nil)
        #expect(legacy.replace == nil)
    }

    @Test("agent event: data.delta and data.replace (talk.md §4.3)")
    func agentEventRewriteMarks() throws {
        let event = try AgentEvent(
            json: WireJSON(
                parsing: #"{"runId":"r","stream":"assistant","data":{"text":"Hi","delta":"Hi","replace":true}}"#))
        #expect(event.data.delta == "Hi" && event.data.replace == true)
        #expect(event.isAssistantUpdate)
        let deltaOnly = try AgentEvent(
            json: WireJSON(parsing: #"{"runId":"r","stream":"assistant","data":{"delta":"x"}}"#))
        #expect(deltaOnly.isAssistantUpdate && deltaOnly.assistantText == nil)
        let tool = try AgentEvent(json: WireJSON(parsing: #"{"runId":"r","stream":"tool","data":{"text":"x"}}"#))
        #expect(!tool.isAssistantUpdate)
    }

    struct AgentCase: Sendable, CustomTestStringConvertible {
        var payload: String
        var lifecycleEnd: Bool
        var assistantText: String?
        var testDescription: String { payload }
    }

    @Test(
        "agent event: assistant text and lifecycle end",
        arguments: [
            AgentCase(
                payload: #"{"runId":"r","stream":"assistant","data":{"text":"Hi"}}"#, lifecycleEnd: false,
                assistantText: "Hi"),
            AgentCase(
                payload: #"{"runId":"r","stream":"lifecycle","data":{"phase":"end"}}"#, lifecycleEnd: true,
                assistantText: nil),
            AgentCase(
                payload: #"{"runId":"r","stream":"lifecycle","data":{"status":"ok"}}"#, lifecycleEnd: true,
                assistantText: nil),
            AgentCase(
                payload: #"{"runId":"r","stream":"lifecycle","phase":"end"}"#, lifecycleEnd: true, assistantText: nil),
            AgentCase(
                payload: #"{"runId":"r","stream":"lifecycle","status":"ok","data":{}}"#, lifecycleEnd: true,
                assistantText: nil),
            AgentCase(
                payload: #"{"runId":"r","stream":"lifecycle","data":{"phase":"start"}}"#, lifecycleEnd: false,
                assistantText: nil),
            AgentCase(
                payload: #"{"runId":"r","stream":"tool","data":{"phase":"end"}}"#, lifecycleEnd: false,
                assistantText: nil),
            AgentCase(
                payload: #"{"runId":"r","stream":"assistant","data":"oops"}"#, lifecycleEnd: false, assistantText: nil),
        ])
    func agentEvent(testCase: AgentCase) throws {
        let event = try AgentEvent(json: WireJSON(parsing: testCase.payload))
        #expect(event.isLifecycleEnd == testCase.lifecycleEnd)
        #expect(event.assistantText == testCase.assistantText)
    }

    @Test("golden: talk.speak params (talk.md §7.1 closed set)")
    func talkSpeakGolden() throws {
        let params = TalkSpeakParams(
            text: "Hello there.", voiceId: "21m00Tcm4TlvDq8ikWAM", modelId: "eleven_v3", outputFormat: "pcm_24000",
            speed: 1.0,
            rateWpm: 175, stability: 0.5, similarity: 0.75, style: 0, speakerBoost: true, seed: 42, normalize: "auto",
            language: "en", latencyTier: 2)
        let wire = try WireJSON(encoding: params)
        let golden = try Fixture.json("talk-speak-params")
        #expect(wire == golden)
        #expect(Set(try #require(wire.objectValue).keys) == Set(try #require(golden.objectValue).keys))
        let labels = Set(Mirror(reflecting: params).children.compactMap(\.label))
        #expect(labels == Set(try #require(golden.objectValue).keys))
    }

    @Test("talk.speak params omit every unset or empty optional")
    func talkSpeakMinimal() throws {
        let wire = try WireJSON(encoding: TalkSpeakParams(text: "Hi", voiceId: "", outputFormat: nil, language: ""))
        #expect(wire.encodedString() == #"{"text":"Hi"}"#)
        #expect(try WireJSON(encoding: TTSSpeakParams(text: "Hi")).encodedString() == #"{"text":"Hi"}"#)
    }

    @Test(
        "talk.speak timeout formula",
        arguments: [(0, 30_000), (100, 30_000), (250, 35_000), (500, 65_000), (1_000, 95_000), (100_000, 95_000)])
    func talkSpeakTimeout(characters: Int, expected: Int) {
        #expect(TalkSpeakParams.timeoutMs(forCharacterCount: characters) == expected)
    }

    @Test("talk.speak result decodes base64 audio")
    func talkSpeakResult() throws {
        let audio = Data([0x49, 0x44, 0x33, 0x04, 0xFF])
        let result = try TalkSpeakResult(
            json: [
                "audioBase64": .string(audio.base64EncodedString()), "provider": "elevenlabs",
                "outputFormat": "mp3_44100_128",
                "voiceCompatible": false, "mimeType": "audio/mpeg", "fileExtension": ".mp3", "future": true,
            ])
        #expect(result.audioData() == audio)
        #expect(result.provider == "elevenlabs")
        #expect(result.outputFormat == "mp3_44100_128")
        #expect(result.voiceCompatible == false)
        #expect(result.mimeType == "audio/mpeg")
        #expect(result.fileExtension == ".mp3")
        let tts = try TalkSpeakResult(json: ["audioBase64": "AAAA", "provider": "openai"])
        #expect(tts.voiceCompatible == nil)
        #expect(tts.audioData() == Data([0, 0, 0]))
        #expect(throws: ProtocolError.self) { try TalkSpeakResult(json: ["provider": "x"]) }
    }

    @Test("talk.speak failure reasons and fallback eligibility")
    func talkSpeakFailure() {
        let shape = ErrorShape(
            code: "UNAVAILABLE", message: "m", details: ["reason": "talk_unconfigured", "fallbackEligible": true])
        #expect(shape.reason.flatMap(TalkSpeakFailureReason.init(rawValue:)) == .talkUnconfigured)
        #expect(shape.fallbackEligible == true)
        #expect(
            TalkSpeakFailureReason.allCases.filter(\.isFallbackEligible) == [
                .talkUnconfigured, .talkProviderUnsupported, .methodUnavailable,
            ])
    }

    @Test("talk.config: resolved provider, aliases, redacted key, locale, session")
    func talkConfig() throws {
        let config = try TalkConfig(json: Fixture.json("talk-config"))
        #expect(config.provider == "elevenlabs")
        // resolved.config is empty, so provider fields fall back to providers[elevenlabs].
        #expect(config.voiceId == "EXAVITQu4vr4xnSDxMaL")
        #expect(config.voiceAliases == ["nova": "21m00Tcm4TlvDq8ikWAM"])
        #expect(config.modelId == "eleven_v3")
        #expect(config.outputFormat == "pcm_44100")
        #expect(!config.hasAPIKey)
        #expect(config.speechLocale == "ru-RU")
        #expect(!config.interruptOnSpeech)
        #expect(config.silenceTimeoutMs == 1500)
        #expect(config.sessionMainKey == "agent:main")
        #expect(config.realtime?["provider"] == "openai")
    }

    @Test("talk.config: resolved.config wins over providers")
    func talkConfigResolvedWins() throws {
        let config = try TalkConfig(
            json: [
                "config": [
                    "talk": [
                        "provider": "elevenlabs",
                        "providers": ["elevenlabs": ["voiceId": "from-providers", "modelId": "m1"]],
                        "resolved": [
                            "provider": "elevenlabs", "config": ["voiceId": "from-resolved", "apiKey": "sk-real"],
                        ],
                    ]
                ]
            ])
        #expect(config.voiceId == "from-resolved")
        #expect(config.modelId == "m1")
        #expect(config.hasAPIKey)
    }

    @Test("talk.config: defaults when fields are absent; legacy flat payload")
    func talkConfigDefaults() throws {
        let empty = try TalkConfig(json: ["config": [:]])
        #expect(empty == TalkConfig())
        #expect(empty.silenceTimeoutMs == 700)
        #expect(empty.interruptOnSpeech)
        #expect(empty.sessionMainKey == "main")
        let legacy = try TalkConfig(json: [
            "config": ["talk": ["voiceId": "v", "apiKey": "${ELEVENLABS_API_KEY}", "silenceTimeoutMs": 0]]
        ])
        #expect(legacy.voiceId == "v")
        #expect(!legacy.hasAPIKey)
        #expect(legacy.silenceTimeoutMs == 700)
    }

    @Test(
        "secret placeholders",
        arguments: [
            ("__OPENCLAW_REDACTED__", true), ("${ELEVENLABS_API_KEY}", true), (" ${X} ", true), ("", true),
            ("sk-abc", false), ("${", false), ("$HOME", false),
        ])
    func placeholders(value: String, placeholder: Bool) {
        #expect(TalkConfig.isSecretPlaceholder(value) == placeholder)
    }

    @Test("talk.mode params and event")
    func talkMode() throws {
        #expect(try WireJSON(encoding: TalkModeParams(enabled: false)).encodedString() == #"{"enabled":false}"#)
        #expect(
            try WireJSON(encoding: TalkModeParams(enabled: true, phase: .listening)).encodedString()
                == #"{"enabled":true,"phase":"listening"}"#)
        #expect(
            try WireJSON(encoding: TalkModeParams(enabled: true, phase: "")).encodedString() == #"{"enabled":true}"#)
        let event = try TalkModeEvent(json: ["enabled": true, "phase": .null, "ts": 5])
        #expect(event == TalkModeEvent(enabled: true, phase: nil, ts: 5))
        #expect(try TalkModeEvent(json: ["enabled": false, "phase": "speaking"]).talkPhase == .speaking)
        #expect(throws: ProtocolError.self) { try TalkModeEvent(json: ["phase": "x"]) }
    }

    @Test("voicewake: get/changed payloads and set params")
    func voiceWakePayloads() throws {
        let triggers = try VoiceWakeTriggers(json: ["triggers": ["hey claw", 5, "computer"]])
        #expect(triggers.triggers == ["hey claw", "computer"])
        #expect(throws: ProtocolError.self) { try VoiceWakeTriggers(json: ["triggers": "x"]) }
        let set = VoiceWakeTriggers.normalized(["  Jarvis  ", ""])
        #expect(try WireJSON(encoding: set).encodedString() == #"{"triggers":["Jarvis"]}"#)
    }

    @Test(
        "voicewake normalization per talk.md §6.1",
        arguments: [
            ([" openclaw ", "", "  ", "computer"], ["openclaw", "computer"]),
            ([], VoiceWakeTriggers.defaults),
            (["", " \n"], VoiceWakeTriggers.defaults),
            ([String(repeating: "x", count: 70)], [String(repeating: "x", count: 64)]),
            // A surrogate pair at the cut (units 64–65) is dropped whole: 63 units remain.
            ([String(repeating: "x", count: 63) + "😀" + "y"], [String(repeating: "x", count: 63)]),
            // A pair ending exactly at unit 64 is kept.
            ([String(repeating: "x", count: 62) + "😀" + "y"], [String(repeating: "x", count: 62) + "😀"]),
        ])
    func voiceWakeNormalize(input: [String], expected: [String]) {
        let result = VoiceWakeTriggers.normalize(input)
        #expect(result == expected)
        #expect(result.allSatisfy { $0.utf16.count <= 64 })
    }

    @Test("voicewake normalization keeps at most 32 triggers, trimming before counting")
    func voiceWakeCount() {
        let input = ["", " "] + (0..<40).map { "w\($0)" }
        let result = VoiceWakeTriggers.normalize(input)
        #expect(result.count == 32)
        #expect(result.first == "w0")
        #expect(result.last == "w31")
    }

    @Test("operator method names and client timeouts")
    func operatorMethods() {
        #expect(OperatorMethod.talkConfig.defaultTimeoutMs == 8_000)
        #expect(OperatorMethod.chatSend.defaultTimeoutMs == 30_000)
        #expect(OperatorMethod.ttsSpeak.defaultTimeoutMs == 60_000)
        #expect(OperatorMethod.voiceWakeSet.defaultTimeoutMs == 15_000)
        #expect(OperatorMethod.voiceWakeGet.rawValue == "voicewake.get")
        #expect(NodeMethod.allCases.map(\.rawValue) == ["node.invoke.result", "node.event"])
    }
}
