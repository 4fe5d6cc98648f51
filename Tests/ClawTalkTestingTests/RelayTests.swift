import ClawTalkAudio
import ClawTalkProtocol
import ClawTalkTesting
import Foundation
import Testing

/// talk.md §11 item 8: the emulated transcription relay enforces talk.md §9.1 on the wire, in
/// upstream's current form (μ-law 8 kHz, `transcriptionSessionId`, finals after close) and the
/// legacy one (pcm16 24 kHz, `relaySessionId`, finals while audio comes).
@Suite(.timeLimit(.minutes(1))) struct RelayTests {
    static var legacy: OperatorScript {
        var script = OperatorScript()
        script.relayForm = .legacy
        return script
    }

    @Test func theCurrentRelayTakesMuLawAt8kHzAndSendsItsFinalsAfterClose() async throws {
        let (gateway, _) = Fixture.gateway()
        let client = try await operatorClient(gateway)
        let created = try await client.call(
            "talk.session.create", ["mode": "transcription", "transport": "gateway-relay", "brain": "none"])
        let sessionId = try #require(created["payload"]?["sessionId"]?.stringValue)
        #expect(created["payload"]?["transcriptionSessionId"] == .string(sessionId))
        #expect(created["payload"]?["audio"]?["inputEncoding"] == "g711_ulaw")
        #expect(created["payload"]?["audio"]?["inputSampleRateHz"] == 8_000)
        let ready = try await client.event("talk.event")
        #expect(ready["payload"]?["type"] == "ready")
        #expect(ready["payload"]?["transcriptionSessionId"] == .string(sessionId))
        // 0.4 s of a loud square wave, then 0.1 s of silence, as μ-law bytes (one per sample).
        let square = (0..<3_200).map { Int16(($0 / 8) % 2 == 0 ? 12_000 : -12_000) }
        let audio = Data(G711.encodeMuLaw(square) + G711.encodeMuLaw([Int16](repeating: 0, count: 800)))
        let appended = try await client.call(
            "talk.session.appendAudio",
            ["sessionId": .string(sessionId), "audioBase64": .string(audio.base64EncodedString()), "timestamp": 0])
        #expect(appended["ok"] == true)
        let acknowledged = try await client.event("talk.event")
        #expect(acknowledged["payload"]?["type"] == "inputAudio")
        #expect(acknowledged["payload"]?["byteLength"] == 4_000)
        // Nothing is transcribed before the close commits the audio.
        let closed = try await client.call("talk.session.close", ["sessionId": .string(sessionId)])
        #expect(closed["ok"] == true)
        let partial = try await client.event("talk.event")
        #expect(partial["payload"]?["type"] == "partial")
        let final = try await client.event("talk.event")
        #expect(final["payload"]?["type"] == "transcript")
        #expect(final["payload"]?["final"] == true)
        #expect(final["payload"]?["text"] == "hello from the relay")
        #expect(final["payload"]?["transcriptionSessionId"] == .string(sessionId))
        let session = try #require(await gateway.recordedRelaySessions().first)
        #expect(session.audio.count == 4_000 && session.bytes == 4_000)
        #expect(abs(Int(session.audio[0]) - 12_000) < 400, "decoded μ-law: \(session.audio[0])")
    }

    func operatorClient(_ gateway: TestGateway) async throws -> WireClient {
        try await connected(gateway, ConnectBuilder.operator(Fixture.identity(61))).client
    }

    /// base64 of `count` samples of a loud square wave (speech for the relay's endpointing).
    static func loud(_ count: Int) -> String {
        var bytes: [UInt8] = []
        for index in 0..<count {
            let value = UInt16(bitPattern: (index / 20) % 2 == 0 ? 12_000 : -12_000)
            bytes += [UInt8(value & 0xff), UInt8(value >> 8)]
        }
        return Data(bytes).base64EncodedString()
    }

    @Test func aLegacySessionHearsChunksAndSendsDeltaThenDone() async throws {
        let (gateway, _) = Fixture.gateway(script: Self.legacy)
        let client = try await operatorClient(gateway)
        let created = try await client.call(
            "talk.session.create", ["mode": "transcription", "transport": "gateway-relay", "brain": "none"])
        let sessionId = try #require(created["payload"]?["sessionId"]?.stringValue)
        #expect(created["payload"]?["audio"]?["inputSampleRateHz"] == 24_000)
        let ready = try await client.event("talk.event")
        #expect(ready["payload"]?["type"] == "ready")
        #expect(ready["payload"]?["relaySessionId"] == .string(sessionId))
        let speech = try await client.call(
            "talk.session.appendAudio",
            ["sessionId": .string(sessionId), "audioBase64": .string(Self.loud(4_800)), "timestamp": 0])
        #expect(speech["ok"] == true)
        let silence = Data(count: 2 * 9_600).base64EncodedString()
        _ = try await client.call(
            "talk.session.appendAudio",
            ["sessionId": .string(sessionId), "audioBase64": .string(silence), "timestamp": 200])
        let delta = try await client.event("talk.event")
        #expect(delta["payload"]?["final"] == false)
        let done = try await client.event("talk.event")
        #expect(done["payload"]?["final"] == true)
        #expect(done["payload"]?["text"] == "hello from the relay")
        #expect(done["payload"]?["talkEvent"]?["type"] == "transcript.done")
        let closed = try await client.call("talk.session.close", ["sessionId": .string(sessionId)])
        #expect(closed["ok"] == true)
        let after = try await client.call(
            "talk.session.appendAudio", ["sessionId": .string(sessionId), "audioBase64": "AAA=", "timestamp": 400])
        #expect(after["error"]?["code"] == "INVALID_REQUEST")
    }

    @Test func appendAudioRejectsWhatTheContractForbids() async throws {
        let (gateway, _) = Fixture.gateway(script: Self.legacy)
        let client = try await operatorClient(gateway)
        let created = try await client.call(
            "talk.session.create", ["mode": "transcription", "transport": "gateway-relay", "brain": "none"])
        let sessionId = WireJSON.string(try #require(created["payload"]?["sessionId"]?.stringValue))
        let fractional = try await client.call(
            "talk.session.appendAudio", ["sessionId": sessionId, "audioBase64": "AAA=", "timestamp": 1.5])
        #expect(fractional["error"]?["code"] == "INVALID_REQUEST")
        let odd = try await client.call(
            "talk.session.appendAudio", ["sessionId": sessionId, "audioBase64": "AAAA", "timestamp": 0])
        #expect(odd["error"]?["code"] == "INVALID_REQUEST")
        let unknown = try await client.call(
            "talk.session.appendAudio", ["sessionId": "nope", "audioBase64": "AAA=", "timestamp": 0])
        #expect(unknown["error"]?["code"] == "INVALID_REQUEST")
        let extra = try await client.call(
            "talk.session.appendAudio", ["sessionId": sessionId, "audioBase64": "AAA=", "timestamp": 0, "seq": 1])
        #expect(extra["error"]?["code"] == "INVALID_REQUEST")
        let language = try await client.call(
            "talk.session.create",
            ["mode": "transcription", "transport": "gateway-relay", "brain": "none", "language": "en-US"])
        #expect(language["error"]?["code"] == "INVALID_REQUEST")
        let realtime = try await client.call("talk.session.create", ["mode": "realtime", "transport": "webrtc"])
        #expect(realtime["error"]?["code"] == "UNAVAILABLE")
    }
}
