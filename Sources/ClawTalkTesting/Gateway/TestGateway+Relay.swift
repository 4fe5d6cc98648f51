import ClawTalkAudio
import ClawTalkProtocol
import ClawTalkSupport
import Foundation

/// The emulated transcription relay (talk.md §9.1, §11 item 8), in the script's
/// ``OperatorScript/relayForm``:
/// - **current** (upstream today): `talk.session.create` in `transcription` mode answers
///   `{sessionId, transcriptionSessionId, audio:{inputEncoding:"g711_ulaw", inputSampleRateHz:
///   8000}}` and sends `{transcriptionSessionId, type:"ready"}`; each `appendAudio` (base64 μ-law
///   bytes, integer `timestamp`) is decoded and acknowledged with `{type:"inputAudio",
///   byteLength}`; on `close` the audio is committed: after ``OperatorScript/relayDrainDelayMs``
///   each speech segment is transcribed by the script and sent as `{type:"partial", text}` then
///   `{type:"transcript", text, final:true}`;
/// - **legacy**: pcm16 LE at 24 kHz (an even byte count), events keyed by `relaySessionId` in the
///   `talkEvent` form, each segment (300 ms of silence ends it) transcribed while audio comes in;
///   `close` ends it.
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
            guard session.form == .current else { return }
            // Upstream commits the audio on close and drains the provider's finals afterwards.
            var segmenter = RelaySpeechSegmenter(sampleRate: session.sampleRate)
            drainRelay(segmenter.append(session.audio) + segmenter.flush(), sessionId: sessionId, connection: id)
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
        let form = script.relayForm
        let rate = form == .current ? 8_000 : 24_000
        relaySessions[sessionId] = TestRelaySession(
            sessionId: sessionId, form: form, sampleRate: rate, ordinal: relaySessions.count, connection: id,
            params: params)
        relaySegmenters[sessionId] = RelaySpeechSegmenter(sampleRate: rate)
        let expiresAt = WireJSON.integer(clock.nowMs() + (params["ttlMs"]?.int64Value ?? 600_000))
        switch form {
        case .current:
            respond(
                id, requestId,
                [
                    "sessionId": .string(sessionId), "transcriptionSessionId": .string(sessionId), "provider": "test",
                    "model": "test-stt", "transport": "gateway-relay", "mode": "transcription",
                    "audio": [
                        "inputEncoding": .string(script.relayStatedEncoding ?? "g711_ulaw"), "inputSampleRateHz": 8_000,
                    ],
                    "expiresAt": expiresAt,
                ])
            if script.relaySendsReady {
                sendBroadcast(id, "talk.event", ["transcriptionSessionId": .string(sessionId), "type": "ready"])
            }
        case .legacy:
            respond(
                id, requestId,
                [
                    "sessionId": .string(sessionId), "relaySessionId": .string(sessionId), "provider": "test",
                    "model": "test-stt", "transport": "gateway-relay",
                    "audio": [
                        "inputEncoding": "pcm16", "inputSampleRateHz": 24_000, "outputEncoding": "pcm16",
                        "outputSampleRateHz": 24_000,
                    ],
                    "expiresAt": expiresAt,
                ])
            if script.relaySendsReady {
                sendBroadcast(
                    id, "talk.event",
                    [
                        "relaySessionId": .string(sessionId), "type": "ready",
                        "talkEvent": [
                            "sessionId": .string(sessionId), "type": "session.ready", "mode": "transcription",
                        ],
                    ])
            }
        }
    }

    private func appendRelayAudio(_ id: Int, _ requestId: String, params: WireJSON) {
        let sessionId = params["sessionId"]?.stringValue ?? ""
        guard let form = relaySessions[sessionId].flatMap({ $0.connection == id && !$0.closed ? $0.form : nil }) else {
            respondError(id, requestId, ErrorShape(code: "INVALID_REQUEST", message: "unknown talk session"))
            return
        }
        guard let timestamp = params["timestamp"]?.int64Value else {
            respondError(id, requestId, Self.invalidParams("talk.session.appendAudio", "timestamp must be an integer"))
            return
        }
        guard let bytes = Data(base64Encoded: params["audioBase64"]?.stringValue ?? ""),
            form == .current || bytes.count % 2 == 0
        else {
            let what = form == .current ? "base64 μ-law" : "base64 pcm16"
            respondError(id, requestId, Self.invalidParams("talk.session.appendAudio", "audio is not \(what)"))
            return
        }
        let samples: [Int16]
        switch form {
        case .current:
            samples = G711.decodeMuLaw(bytes)
        case .legacy:
            samples = bytes.withUnsafeBytes { raw in
                (0..<(bytes.count / 2)).map {
                    Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))
                }
            }
        }
        // Recorded in place in the table, so that appending does not copy the recording.
        relaySessions[sessionId]?.record(samples, bytes: bytes.count, timestamp: timestamp)
        switch form {
        case .current:
            // Segmented at close (the commit); acknowledged with `inputAudio` after the answer.
            break
        case .legacy:
            for segment in relaySegmenters[sessionId]?.append(samples) ?? [] {
                transcribeRelaySegment(segment, sessionId: sessionId, connection: id)
            }
        }
        let delay = script.relayAppendDelayMs
        let byteLength = bytes.count
        // Answered at once unless the script delays it: the answer then goes before the
        // transcript of a segment it ended (that runs as a child, later on this actor).
        guard delay > 0 else {
            finishAppend(id, requestId, sessionId: sessionId, byteLength: byteLength)
            return
        }
        children.spawn {
            try? await Task.sleep(for: .milliseconds(delay))
            await self.finishAppend(id, requestId, sessionId: sessionId, byteLength: byteLength)
        }
    }

    private func finishAppend(_ id: Int, _ requestId: String, sessionId: String, byteLength: Int) {
        relaySessions[sessionId]?.inFlight -= 1
        respond(id, requestId, ["ok": true])
        guard relaySessions[sessionId]?.form == .current else { return }
        sendBroadcast(
            id, "talk.event",
            [
                "transcriptionSessionId": .string(sessionId), "type": "inputAudio",
                "byteLength": .integer(Int64(byteLength)),
            ])
    }

    private func transcribeRelaySegment(_ segment: [Int16], sessionId: String, connection id: Int) {
        let transcriber = script.relayTranscriber
        let fallback = script.relayTranscript
        children.spawn {
            let heard = await transcriber(segment, 24_000)
            await self.sendRelayTranscript(heard.isEmpty ? fallback : heard, sessionId: sessionId, connection: id)
        }
    }

    /// Current form, after close: the committed segments' partials and finals, in order.
    private func drainRelay(_ segments: [[Int16]], sessionId: String, connection id: Int) {
        let transcriber = script.relayTranscriber
        let fallback = script.relayTranscript
        let delay = script.relayDrainDelayMs
        children.spawn {
            if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
            for segment in segments {
                let heard = await transcriber(segment, 8_000)
                await self.sendCurrentTranscript(heard.isEmpty ? fallback : heard, sessionId: sessionId, connection: id)
            }
        }
    }

    private func sendCurrentTranscript(_ text: String, sessionId: String, connection id: Int) {
        let words = text.split(separator: " ")
        let partial = words.prefix(max(1, words.count / 2)).joined(separator: " ")
        sendBroadcast(
            id, "talk.event",
            ["transcriptionSessionId": .string(sessionId), "type": "partial", "text": .string(partial)])
        sendBroadcast(
            id, "talk.event",
            [
                "transcriptionSessionId": .string(sessionId), "type": "transcript", "text": .string(text),
                "final": true,
            ])
        relaySessions[sessionId]?.finals.append(text)
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
