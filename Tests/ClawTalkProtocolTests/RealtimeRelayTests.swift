import ClawTalkProtocol
import Foundation
import Testing

/// Wire shapes of realtime Talk over the gateway relay (talk.md §9.2): closed request params and
/// strict event decoding, where bad input is a typed error of one kind.
struct RealtimeRelayTests {
    static let format = RealtimeAudioFormat.pcm16At24k
    static let limit = 30_720
    /// 20 ms of pcm16 at 24 kHz: samples 0, 1, …, 479 little-endian.
    static let chunk: String = {
        var bytes: [UInt8] = []
        for sample in 0..<480 { bytes += [UInt8(sample & 0xFF), UInt8(sample >> 8)] }
        return Data(bytes).base64EncodedString()
    }()

    @Test func createParamsAreClosedWithTheRealtimeConstants() throws {
        let bare = try WireJSON(encoding: RealtimeSessionCreateParams(sessionKey: "main"))
        #expect(
            bare == ["sessionKey": "main", "mode": "realtime", "transport": "gateway-relay", "brain": "agent-consult"])
        let full = try WireJSON(
            encoding: RealtimeSessionCreateParams(
                sessionKey: "main", provider: "openai", model: "gpt-realtime", voice: "alloy", language: "en-GB",
                vadThreshold: 0.5, silenceDurationMs: 500, prefixPaddingMs: 300, ttlMs: 99))
        #expect(full["language"] == "en")
        #expect(full["vadThreshold"] == .number(0.5))
        #expect(full["silenceDurationMs"] == 500)
        #expect(full["prefixPaddingMs"] == 300)
        #expect(full["ttlMs"] == 1_000)
        #expect(full["voice"] == "alloy")
        // Out-of-range values and empty strings are omitted, never sent as null.
        let dropped = try WireJSON(
            encoding: RealtimeSessionCreateParams(
                sessionKey: "main", provider: "", language: "xyz", vadThreshold: 3, silenceDurationMs: -1))
        #expect(dropped.objectValue?.keys.sorted() == ["brain", "mode", "sessionKey", "transport"])
    }

    @Test func requestParamsAreClosed() throws {
        #expect(
            try WireJSON(encoding: TalkSessionCancelOutputParams(sessionId: "s", turnId: "t1"))
                == ["sessionId": "s", "turnId": "t1", "reason": "barge-in"])
        #expect(
            try WireJSON(encoding: TalkSessionAcknowledgeMarkParams(sessionId: "s", name: "m1"))
                == ["sessionId": "s", "name": "m1"])
        #expect(
            try WireJSON(encoding: TalkSessionSubmitToolResultParams(sessionId: "s", callId: "c", error: "no"))
                == ["sessionId": "s", "callId": "c", "error": "no"])
        let append = try WireJSON(
            encoding: TalkSessionAppendAudioParams(sessionId: "s", audioBase64: "AA==", timestamp: 20))
        #expect(append.encodedString().contains("\"timestamp\":20"))
        #expect(!append.encodedString().contains("20."))
    }

    static let statuses: [(WireJSON?, TalkSessionCancelStatus)] = [
        (["status": "applied"], .applied), (["status": "stale"], .stale), (["status": "idle"], .idle),
        (["status": "gone"], .other), (nil, .other),
    ]

    @Test(arguments: statuses)
    func cancelStatus(json: WireJSON?, expected: TalkSessionCancelStatus) {
        #expect(TalkSessionCancelStatus(json: json) == expected)
    }

    @Test func createdReadsBothFormats() throws {
        let created = try RealtimeSessionCreated(json: [
            "sessionId": "s1", "relaySessionId": "r1", "provider": "openai", "voice": "alloy",
            "audio": [
                "inputEncoding": "pcm16", "inputSampleRateHz": 24_000, "outputEncoding": "PCM16",
                "outputSampleRateHz": 16_000,
            ],
        ])
        #expect(created.relaySessionId == "r1")
        #expect(created.input == .pcm16At24k)
        #expect(created.output == RealtimeAudioFormat(encoding: "pcm16", sampleRateHz: 16_000))
        #expect(created.output.isSupported)
        let bare = try RealtimeSessionCreated(json: ["sessionId": "s2"])
        #expect(bare.relaySessionId == "s2")
        #expect(bare.input == .pcm16At24k && bare.output == .pcm16At24k)
        #expect(!RealtimeAudioFormat(encoding: "g711_ulaw", sampleRateHz: 8_000).isSupported)
        #expect(throws: ProtocolError.self) { try RealtimeSessionCreated(json: ["relaySessionId": "r"]) }
    }

    /// Every event type, in its wire form, and what it decodes to.
    static let decoded: [(WireJSON, RealtimeRelayEvent)] = [
        (["relaySessionId": "r", "type": "ready"], .ready),
        (["relaySessionId": "r", "type": "session.ready"], .ready),
        (
            ["relaySessionId": "r", "type": "audio", "turnId": "t1", "audioBase64": .string(chunk)],
            .audio(samples: (0..<480).map { Int16($0) }, turnId: "t1")
        ),
        (["relaySessionId": "r", "type": "audioDone", "turnId": "t1"], .audioDone(turnId: "t1")),
        (["relaySessionId": "r", "type": "clear"], .clear),
        (["relaySessionId": "r", "type": "mark", "name": "m1", "turnId": "t1"], .mark(name: "m1", turnId: "t1")),
        (["relaySessionId": "r", "type": "mark", "payload": ["name": "m2"]], .mark(name: "m2", turnId: nil)),
        (
            ["relaySessionId": "r", "type": "transcript", "role": "user", "text": "hi", "final": true],
            .transcript(role: .user, text: "hi", final: true)
        ),
        (
            ["relaySessionId": "r", "type": "transcript", "role": "assistant", "text": "he", "final": false],
            .transcript(role: .assistant, text: "he", final: false)
        ),
        (
            [
                "relaySessionId": "r", "type": "toolCall", "callId": "c1", "name": "lookup",
                "argumentsJson": "{\"q\":1}",
            ],
            .toolCall(callId: "c1", name: "lookup", argumentsJson: "{\"q\":1}")
        ),
        (["relaySessionId": "r", "type": "inputAudio", "byteLength": 960], .inputAudio),
        (["relaySessionId": "r", "type": "session.replaced"], .replaced),
        (["relaySessionId": "r", "type": "error", "message": "quota"], .error(message: "quota")),
        (["relaySessionId": "r", "type": "close", "reason": "ttl"], .close(reason: "ttl")),
        (["relaySessionId": "r", "type": "closed"], .close(reason: nil)),
    ]

    @Test(arguments: decoded)
    func decodesEveryType(json: WireJSON, expected: RealtimeRelayEvent) throws {
        #expect(RealtimeRelayEvent.relaySessionId(of: json) == "r")
        #expect(try RealtimeRelayEvent(json: json, format: Self.format, maximumChunkBytes: Self.limit) == expected)
    }

    /// Bad input and the kind of error it is.
    static let refused: [(WireJSON, String)] = [
        (["relaySessionId": "r", "type": "audio", "turnId": "t", "audioBase64": "%%%not base64"], "malformed_base64"),
        (["relaySessionId": "r", "type": "dance"], "unknown_type"),
        (["relaySessionId": "r", "type": "audio", "turnId": "t", "audioBase64": "AAAA"], "audio_format"),
        (
            [
                "relaySessionId": "r", "type": "audio", "turnId": "t", "audioBase64": .string(chunk),
                "sampleRateHz": 16_000,
            ],
            "audio_format"
        ),
        (
            [
                "relaySessionId": "r", "type": "audio", "turnId": "t", "audioBase64": .string(chunk),
                "encoding": "g711_ulaw",
            ], "audio_format"
        ),
        (
            [
                "relaySessionId": "r", "type": "audio", "turnId": "t",
                "audioBase64": .string(Data(count: 40_000).base64EncodedString()),
            ], "oversized_chunk"
        ),
        (["relaySessionId": "r", "type": "audio", "audioBase64": .string(chunk)], "missing_field"),
        (["relaySessionId": "r", "type": "mark"], "missing_field"),
        (["relaySessionId": "r", "type": "transcript", "role": "robot", "text": "x"], "missing_field"),
        (["relaySessionId": "r"], "missing_field"),
    ]

    @Test(arguments: refused)
    func refusesBadInputWithAKind(json: WireJSON, kind: String) {
        do {
            _ = try RealtimeRelayEvent(json: json, format: Self.format, maximumChunkBytes: Self.limit)
            Issue.record("decoded \(json.encodedString().prefix(80))")
        } catch {
            #expect(error.kind == kind)
            #expect(!error.description.isEmpty)
        }
    }

    @Test func sessionIdOfOtherPayloads() {
        #expect(RealtimeRelayEvent.relaySessionId(of: ["talkEvent": ["sessionId": "r2", "type": "ready"]]) == "r2")
        #expect(
            RealtimeRelayEvent.relaySessionId(of: ["sessionId": "node:n:talk:c", "type": "capture.started"]) == nil)
        #expect(RealtimeRelayEvent.relaySessionId(of: "text") == nil)
    }

    @Test func realtimeConfigAndCatalog() {
        let config = TalkRealtimeConfig(json: [
            "mode": "realtime", "transport": "gateway-relay", "voice": "alloy", "silenceDurationMs": 600,
        ])
        #expect(config?.wantsGatewayRelay == true)
        #expect(config?.createParams(sessionKey: "main", language: "de-DE").language == "de")
        #expect(TalkRealtimeConfig(json: ["mode": "realtime", "transport": "webrtc"])?.wantsGatewayRelay == false)
        #expect(TalkRealtimeConfig(json: "realtime") == nil)
        let catalog = TalkCatalog(json: [
            "modes": ["realtime", "transcription"], "realtime": ["ready": true, "transports": ["gateway-relay"]],
        ])
        #expect(catalog.realtimeReady && catalog.offersGatewayRelay)
        let none = TalkCatalog(json: ["modes": ["transcription"], "transports": ["webrtc"]])
        #expect(!none.realtimeReady && !none.offersGatewayRelay)
    }
}
