import ClawTalkProtocol
import Foundation

/// The emulated transcription relay (talk-contract §9.1, §11 item 8): `talk.session.create` in
/// `transcription` mode answers the session and sends `ready`; `appendAudio` must carry base64
/// pcm16 (an even byte count) with an integer `timestamp` for an open session of the same
/// connection; each speech segment (300 ms of silence ends it) is transcribed by the script and
/// sent as `transcript.delta` then `transcript.done` (`talk.event`, relay form); `close` ends it.
extension TestGateway {
    func handleRelayCall(_ id: Int, _ requestId: String, method: String, params: WireJSON) {
        switch method {
        case "talk.session.create":
            createRelaySession(id, requestId, params: params)
        case "talk.session.appendAudio":
            appendRelayAudio(id, requestId, params: params)
        case "talk.session.close":
            let sessionId = params["sessionId"]?.stringValue ?? ""
            guard var session = relaySessions[sessionId], session.connection == id else {
                respondError(id, requestId, ErrorShape(code: "INVALID_REQUEST", message: "unknown talk session"))
                return
            }
            session.closed = true
            relaySessions[sessionId] = session
            relaySegmenters[sessionId] = nil
            respond(id, requestId, ["ok": true])
        default:
            respondError(id, requestId, ErrorShape(code: "INVALID_REQUEST", message: "unknown method: \(method)"))
        }
    }

    private func createRelaySession(_ id: Int, _ requestId: String, params: WireJSON) {
        guard params["mode"]?.stringValue == "transcription", params["transport"]?.stringValue == "gateway-relay"
        else {
            respondError(
                id, requestId,
                ErrorShape(code: "UNAVAILABLE", message: "only transcription over gateway-relay is emulated"))
            return
        }
        if let language = params["language"]?.stringValue, language.count != 2 {
            respondError(id, requestId, Self.invalidParams("talk.session.create", "language must be two letters"))
            return
        }
        if let ttl = params["ttlMs"]?.int64Value, ttl > 3_600_000 {
            respondError(id, requestId, Self.invalidParams("talk.session.create", "ttlMs above 3600000"))
            return
        }
        guard script.transcriptionReady else {
            respondError(id, requestId, ErrorShape(code: "UNAVAILABLE", message: "no transcription provider"))
            return
        }
        let sessionId = "relay-\(WireID.make())"
        relaySessions[sessionId] = TestRelaySession(
            sessionId: sessionId, ordinal: relaySessions.count, connection: id, params: params)
        relaySegmenters[sessionId] = RelaySpeechSegmenter()
        respond(
            id, requestId,
            [
                "sessionId": .string(sessionId), "relaySessionId": .string(sessionId), "provider": "test",
                "model": "test-stt", "transport": "gateway-relay",
                "audio": [
                    "inputEncoding": "pcm16", "inputSampleRateHz": 24_000, "outputEncoding": "pcm16",
                    "outputSampleRateHz": 24_000,
                ],
                "expiresAt": .integer(clock.nowMs() + (params["ttlMs"]?.int64Value ?? 600_000)),
            ])
        if script.relaySendsReady {
            sendBroadcast(
                id, "talk.event",
                [
                    "relaySessionId": .string(sessionId), "type": "ready",
                    "talkEvent": ["sessionId": .string(sessionId), "type": "session.ready", "mode": "transcription"],
                ])
        }
    }

    private func appendRelayAudio(_ id: Int, _ requestId: String, params: WireJSON) {
        let sessionId = params["sessionId"]?.stringValue ?? ""
        guard var session = relaySessions[sessionId], session.connection == id, !session.closed else {
            respondError(id, requestId, ErrorShape(code: "INVALID_REQUEST", message: "unknown talk session"))
            return
        }
        guard let timestamp = params["timestamp"]?.int64Value else {
            respondError(id, requestId, Self.invalidParams("talk.session.appendAudio", "timestamp must be an integer"))
            return
        }
        guard let bytes = Data(base64Encoded: params["audioBase64"]?.stringValue ?? ""), bytes.count % 2 == 0 else {
            respondError(id, requestId, Self.invalidParams("talk.session.appendAudio", "audio is not base64 pcm16"))
            return
        }
        let samples = bytes.withUnsafeBytes { raw in
            (0..<(bytes.count / 2)).map {
                Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))
            }
        }
        session.audio.append(contentsOf: samples)
        session.timestamps.append(timestamp)
        session.chunkSamples.append(samples.count)
        session.inFlight += 1
        session.maxInFlight = max(session.maxInFlight, session.inFlight)
        relaySessions[sessionId] = session
        for segment in relaySegmenters[sessionId]?.append(samples) ?? [] {
            transcribeRelaySegment(segment, sessionId: sessionId, connection: id)
        }
        let delay = script.relayAppendDelayMs
        Task {
            if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
            self.finishAppend(id, requestId, sessionId: sessionId)
        }
    }

    private func finishAppend(_ id: Int, _ requestId: String, sessionId: String) {
        relaySessions[sessionId]?.inFlight -= 1
        respond(id, requestId, ["ok": true])
    }

    private func transcribeRelaySegment(_ segment: [Int16], sessionId: String, connection id: Int) {
        let transcriber = script.relayTranscriber
        let fallback = script.relayTranscript
        Task {
            let heard = await transcriber(segment)
            self.sendRelayTranscript(heard.isEmpty ? fallback : heard, sessionId: sessionId, connection: id)
        }
    }

    private func sendRelayTranscript(_ text: String, sessionId: String, connection id: Int) {
        guard relaySessions[sessionId]?.closed == false else { return }
        let words = text.split(separator: " ")
        let partial = words.prefix(max(1, words.count / 2)).joined(separator: " ")
        for (body, final) in [(partial, false), (text, true)] {
            sendBroadcast(
                id, "talk.event",
                [
                    "relaySessionId": .string(sessionId), "type": "transcript", "role": "user", "text": .string(body),
                    "final": .bool(final),
                    "talkEvent": [
                        "sessionId": .string(sessionId), "type": final ? "transcript.done" : "transcript.delta",
                        "final": .bool(final),
                    ],
                ])
        }
        relaySessions[sessionId]?.finals.append(text)
    }

    // MARK: Harness API

    /// Every relay session created so far, oldest first.
    public func recordedRelaySessions() -> [TestRelaySession] {
        relaySessions.values.sorted { $0.ordinal < $1.ordinal }
    }
}
