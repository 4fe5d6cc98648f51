import ClawTalkProtocol
import Testing

/// Wire shapes of the transcription relay (talk.md §9.1).
struct TalkSessionTests {
    @Test func createParamsAreClosedAndReduceTheLanguageToTwoLetters() throws {
        let params = try WireJSON(encoding: TalkSessionCreateParams(language: "pt_BR"))
        #expect(params == ["mode": "transcription", "transport": "gateway-relay", "brain": "none", "language": "pt"])
        let bare = try WireJSON(encoding: TalkSessionCreateParams(language: "deu"))
        #expect(bare == ["mode": "transcription", "transport": "gateway-relay", "brain": "none"])
        let full = try WireJSON(encoding: TalkSessionCreateParams(sessionKey: "main", ttlMs: 10))
        #expect(full["sessionKey"] == "main")
        #expect(full["ttlMs"] == 1_000)
        #expect(try WireJSON(encoding: TalkSessionCreateParams(ttlMs: 9_999_999))["ttlMs"] == 3_600_000)
    }

    @Test func appendParamsCarryAnIntegerTimestamp() throws {
        let params = try WireJSON(
            encoding: TalkSessionAppendAudioParams(sessionId: "s1", audioBase64: "AAA=", timestamp: 40))
        #expect(params == ["sessionId": "s1", "audioBase64": "AAA=", "timestamp": 40])
        #expect(params.encodedString().contains("\"timestamp\":40"))
    }

    @Test func createdReadsTheSessionAndAudioFormat() throws {
        let created = try TalkSessionCreated(json: [
            "sessionId": "s1", "relaySessionId": "r1", "provider": "openai", "model": "gpt-4o-transcribe",
            "audio": ["inputEncoding": "pcm16", "inputSampleRateHz": 24_000],
        ])
        #expect(created.sessionId == "s1")
        #expect(created.relaySessionId == "r1")
        #expect(created.inputSampleRateHz == 24_000)
        #expect(try TalkSessionCreated(json: ["sessionId": "s2"]).relaySessionId == "s2")
        #expect(throws: ProtocolError.self) { try TalkSessionCreated(json: ["relaySessionId": "r"]) }
    }

    @Test func relayEventsInTheirUpstreamForms() {
        let done = TalkRelayEvent(json: [
            "relaySessionId": "r1", "type": "transcript", "role": "user", "text": "hello", "final": true,
            "talkEvent": ["type": "transcript.done", "final": true],
        ])
        #expect(done == .transcript(relaySessionId: "r1", role: "user", text: "hello", final: true))
        let delta = TalkRelayEvent(json: [
            "talkEvent": ["sessionId": "r1", "type": "transcript.delta", "payload": ["text": "hel"]],
            "type": "transcript.delta",
        ])
        #expect(delta == .transcript(relaySessionId: "r1", role: "user", text: "hel", final: false))
        #expect(TalkRelayEvent(json: ["relaySessionId": "r1", "type": "ready"]) == .ready(relaySessionId: "r1"))
        #expect(
            TalkRelayEvent(json: ["relaySessionId": "r1", "type": "error", "message": "quota"])
                == .error(relaySessionId: "r1", message: "quota"))
        // A push-to-talk capture event is not a relay event.
        #expect(
            TalkRelayEvent(json: [
                "sessionId": "node:n:talk:c", "type": "capture.started", "mode": "stt-tts", "final": false,
            ]) == nil)
    }

    @Test func catalogReadiness() {
        #expect(TalkCatalog(json: ["transcription": ["ready": true, "activeProvider": "x"]]).transcriptionReady)
        #expect(!TalkCatalog(json: ["transcription": ["ready": false]]).transcriptionReady)
        #expect(!TalkCatalog(json: ["modes": ["stt-tts"]]).transcriptionReady)
        #expect(TalkCatalog(json: ["transcription": true]).transcriptionReady)
        #expect(!TalkCatalog(json: nil).transcriptionReady)
    }
}
