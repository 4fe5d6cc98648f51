public import ClawTalkProtocol
import ClawTalkSupport
import Foundation

/// The emulated realtime provider of the relay (talk.md §9.2, §11 item 9):
/// - `talk.session.create` with `mode:"realtime"` answers `{sessionId, relaySessionId, audio:{pcm16
///   at 24 kHz both ways}, provider, model, voice, expiresAt}` and sends `ready`;
/// - `appendAudio` (integer `timestamp`, pcm16) feeds a server VAD (RMS ≥ 0.03, 300 ms of silence
///   ends a turn of at least 100 ms of speech); at a turn's end: the user `transcript`, then the reply's `audio` in 20 ms chunks
///   with a `turnId` (paced by ``TestRealtimeScript/chunkPaceMs``), a `mark` every
///   ``TestRealtimeScript/markEveryChunks`` chunks and at the end, `audioDone`, the assistant
///   `transcript`;
/// - `cancelOutput` stops the named turn's audio (`applied`; `stale` for an ended turn, `idle`
///   with none); `acknowledgeMark` / `talk.realtime.relayMark` are recorded; `submitToolResult`
///   is recorded; `close` ends it;
/// - the harness drops (``dropRealtimeSession(error:)``) or replaces
///   (``replaceRealtimeSession()``) the session and injects raw events.
extension TestGateway {
    /// Whether a `talk.session.*` call belongs to the realtime emulation.
    func isRealtimeCall(_ method: String, params: WireJSON) -> Bool {
        if method == "talk.session.create" { return params["mode"]?.stringValue == "realtime" }
        if method == "talk.realtime.relayMark" { return true }
        return realtimeSessions[params["sessionId"]?.stringValue ?? ""] != nil
    }

    func handleRealtimeCall(_ id: Int, _ requestId: String, method: String, params: WireJSON) {
        if method == "talk.session.create" {
            createRealtimeSession(id, requestId, params: params)
            return
        }
        let sessionId = params["sessionId"]?.stringValue ?? ""
        guard isOpenRealtimeSession(sessionId, connection: id) else {
            respondError(id, requestId, ErrorShape(code: "INVALID_REQUEST", message: "unknown talk session"))
            return
        }
        // Before any copy of the session is taken here: a copy alive while the append grows the
        // recording makes the append copy all of it (the bench process took a core, 2026-12-07).
        if method == "talk.session.appendAudio" {
            appendRealtimeAudio(id, requestId, params: params)
            return
        }
        guard var session = realtimeSessions[sessionId] else { return }
        switch method {
        case "talk.session.cancelOutput":
            let turnId = params["turnId"]?.stringValue ?? ""
            let status: String
            if session.activeTurn == turnId {
                status = "applied"
                session.activeTurn = nil
                session.stoppedTurns.insert(turnId)
            } else {
                status = session.turns.contains(turnId) ? "stale" : "idle"
            }
            session.cancels.append(TestRealtimeCancel(turnId: turnId, status: status, at: .now))
            realtimeSessions[sessionId] = session
            respond(id, requestId, ["status": .string(status)])
        case "talk.session.acknowledgeMark", "talk.realtime.relayMark":
            let name = params["name"]?.stringValue ?? ""
            if let index = session.marks.firstIndex(where: { $0.name == name && $0.acknowledgedAt == nil }) {
                session.marks[index].acknowledgedAt = .now
            } else {
                session.unknownAcknowledgements.append(name)
            }
            realtimeSessions[sessionId] = session
            respond(id, requestId, ["ok": true])
        case "talk.session.submitToolResult":
            session.toolResults.append(params)
            realtimeSessions[sessionId] = session
            respond(id, requestId, ["ok": true])
        case "talk.session.close":
            session.closed = true
            if let turn = session.activeTurn { session.stoppedTurns.insert(turn) }
            session.activeTurn = nil
            realtimeSessions[sessionId] = session
            respond(id, requestId, ["ok": true])
        default:
            respondError(id, requestId, ErrorShape(code: "INVALID_REQUEST", message: "unknown method: \(method)"))
        }
    }

    /// Whether `sessionId` is an open session of connection `id` (no copy of it is kept).
    private func isOpenRealtimeSession(_ sessionId: String, connection id: Int) -> Bool {
        realtimeSessions[sessionId].map { $0.connection == id && !$0.closed && !$0.dropped } ?? false
    }

    private func createRealtimeSession(_ id: Int, _ requestId: String, params: WireJSON) {
        guard params["transport"]?.stringValue == "gateway-relay" else {
            respondError(
                id, requestId, ErrorShape(code: "UNAVAILABLE", message: "only realtime over gateway-relay is emulated"))
            return
        }
        guard params["brain"]?.stringValue == "agent-consult", params["sessionKey"]?.nonEmptyStringValue != nil else {
            respondError(
                id, requestId,
                Self.invalidParams("talk.session.create", "realtime needs brain agent-consult and a sessionKey"))
            return
        }
        guard script.realtime.ready, script.realtime.failCreates == 0 else {
            script.realtime.failCreates = max(0, script.realtime.failCreates - 1)
            respondError(id, requestId, ErrorShape(code: "UNAVAILABLE", message: "realtime provider unavailable"))
            return
        }
        let sessionId = "rt-\(WireID.make())"
        realtimeSessions[sessionId] = TestRealtimeSession(
            sessionId: sessionId, ordinal: realtimeSessions.count, connection: id, params: params)
        let rate: WireJSON = 24_000
        respond(
            id, requestId,
            [
                "sessionId": .string(sessionId), "relaySessionId": .string(sessionId), "provider": "test",
                "model": "test-realtime", "voice": params["voice"] ?? "test-voice",
                "audio": [
                    "inputEncoding": "pcm16", "inputSampleRateHz": rate,
                    "outputEncoding": .string(script.realtime.outputEncoding), "outputSampleRateHz": rate,
                ],
                "expiresAt": .integer(clock.nowMs() + (params["ttlMs"]?.int64Value ?? 600_000)),
            ])
        if script.realtime.sendsReady { sendRealtimeEvent(sessionId, ["type": "ready"]) }
    }

    private func appendRealtimeAudio(_ id: Int, _ requestId: String, params: WireJSON) {
        let sessionId = params["sessionId"]?.stringValue ?? ""
        guard realtimeSessions[sessionId] != nil else { return }
        let arrived = ContinuousClock.now
        // A JSON integer only: `12.0` is refused too (the provider rejects fractional offsets).
        guard case .integer(let timestamp) = params["timestamp"] else {
            realtimeSessions[sessionId]?.refusedTimestamps += 1
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
        // Recorded in place in the table: a copy of the session alive meanwhile (taken here or by
        // the caller) made every append copy the whole recording, and after 12 min of a bench run
        // the emulator took a core by itself and answered appends seconds late (2026-12-07).
        let heard = realtimeSessions[sessionId]?.record(samples, timestamp: timestamp, arrived: arrived) ?? 0
        let turnsEnded = script.realtime.serverVAD ? heard : 0
        for _ in 0..<turnsEnded { startRealtimeTurn(sessionId) }
        let delay = script.realtime.appendDelayMs
        guard delay > 0 else {
            finishRealtimeAppend(id, requestId, sessionId: sessionId)
            return
        }
        children.spawn {
            try? await Task.sleep(for: .milliseconds(delay))
            await self.finishRealtimeAppend(id, requestId, sessionId: sessionId)
        }
    }

    private func finishRealtimeAppend(_ id: Int, _ requestId: String, sessionId: String) {
        realtimeSessions[sessionId]?.inFlight -= 1
        respond(id, requestId, ["ok": true])
    }

    /// The server VAD ended a user turn: the transcript, then the reply.
    private func startRealtimeTurn(_ sessionId: String) {
        sendRealtimeEvent(
            sessionId,
            ["type": "transcript", "role": "user", "text": .string(script.realtime.userTranscript), "final": true])
        startRealtimeReply(sessionId)
    }

    /// Sends a reply on `sessionId` as the provider would (see the type's description).
    func startRealtimeReply(_ sessionId: String) {
        guard var session = realtimeSessions[sessionId], !session.closed, !session.dropped else { return }
        let turnId = "turn-\(session.turns.count + 1)"
        if let old = session.activeTurn { session.stoppedTurns.insert(old) }
        session.activeTurn = turnId
        session.turns.append(turnId)
        realtimeSessions[sessionId] = session
        let reply = script.realtime.reply
        let pace = script.realtime.chunkPaceMs
        let markEvery = max(script.realtime.markEveryChunks, 1)
        let text = script.realtime.assistantTranscript
        children.spawn {
            await self.playRealtimeReply(
                reply, sessionId: sessionId, turnId: turnId, pace: pace, markEvery: markEvery, text: text)
        }
    }

    /// Plays `reply` in 20 ms chunks paced `pace` ms apart, with a mark every `markEvery` chunks,
    /// then `audioDone` and the assistant transcript `text`, unless another turn replaces it.
    private func playRealtimeReply(
        _ reply: [Int16], sessionId: String, turnId: String, pace: Int, markEvery: Int, text: String
    ) async {
        let started = ContinuousClock.now
        var chunk = 0
        var offset = 0
        while offset < reply.count {
            guard realtimeSessions[sessionId]?.activeTurn == turnId else { return }
            let end = min(offset + 480, reply.count)
            sendRealtimeAudio(sessionId, turnId: turnId, samples: Array(reply[offset..<end]))
            chunk += 1
            offset = end
            if chunk % markEvery == 0 || offset == reply.count {
                sendRealtimeMark(sessionId, turnId: turnId, index: chunk, audioMs: offset / 24, started: started)
            }
            // On a schedule from the first chunk, so that a long reply keeps its pace.
            if pace > 0 { try? await Task.sleep(until: started + .milliseconds(pace * chunk)) }
        }
        guard realtimeSessions[sessionId]?.activeTurn == turnId else { return }
        realtimeSessions[sessionId]?.activeTurn = nil
        sendRealtimeEvent(sessionId, ["type": "audioDone", "turnId": .string(turnId)])
        sendRealtimeEvent(sessionId, ["type": "transcript", "role": "assistant", "text": .string(text), "final": true])
    }

    private func sendRealtimeAudio(_ sessionId: String, turnId: String, samples: [Int16]) {
        var data = Data(capacity: samples.count * 2)
        for sample in samples {
            let value = UInt16(bitPattern: sample)
            data.append(UInt8(value & 0xFF))
            data.append(UInt8(value >> 8))
        }
        realtimeSessions[sessionId]?.chunksSent[turnId, default: 0] += 1
        sendRealtimeEvent(
            sessionId, ["type": "audio", "turnId": .string(turnId), "audioBase64": .string(data.base64EncodedString())])
    }

    private func sendRealtimeMark(
        _ sessionId: String, turnId: String, index: Int, audioMs: Int, started: ContinuousClock.Instant
    ) {
        let name = "\(turnId)-m\(index)"
        realtimeSessions[sessionId]?.marks.append(
            TestRealtimeMark(name: name, turnId: turnId, sentAt: .now, audioBeforeMs: audioMs, turnStartedAt: started))
        sendRealtimeEvent(sessionId, ["type": "mark", "name": .string(name), "turnId": .string(turnId)])
    }

    /// Sends `payload` with the session's `relaySessionId` as a `talk.event` to its connection.
    func sendRealtimeEvent(_ sessionId: String, _ payload: WireObject) {
        guard let session = realtimeSessions[sessionId] else { return }
        var payload = payload
        payload["relaySessionId"] = .string(sessionId)
        sendBroadcast(session.connection, "talk.event", .object(payload))
    }

    private var newestOpenRealtimeSession: String? {
        realtimeSessions.values.filter { !$0.closed && !$0.dropped }.max { $0.ordinal < $1.ordinal }?.sessionId
    }

    // MARK: Harness API

    /// Every realtime session created so far, oldest first.
    public func recordedRealtimeSessions() -> [TestRealtimeSession] {
        realtimeSessions.values.sorted { $0.ordinal < $1.ordinal }
    }

    /// `turnId` of the newest open session (its latest turn when nil), or nil when there is no
    /// open session or no such turn in it. Cheap enough to poll: it copies no recording (a
    /// bench polling whole sessions made each append copy the growing audio it still held).
    public func realtimeTurn(_ turnId: String? = nil) -> TestRealtimeTurn? {
        guard let sessionId = newestOpenRealtimeSession, let session = realtimeSessions[sessionId],
            let id = turnId ?? session.turns.last, session.turns.contains(id)
        else { return nil }
        let marks = session.marks.filter { $0.turnId == id }
        return TestRealtimeTurn(
            turnId: id, active: session.activeTurn == id, stopped: session.stoppedTurns.contains(id),
            marksSent: marks.count, marksAcknowledged: marks.filter { $0.acknowledgedAt != nil }.count,
            startedAt: marks.first?.turnStartedAt)
    }

    /// Appends the newest open session received (0 when there is none).
    public var realtimeAppendCount: Int {
        newestOpenRealtimeSession.flatMap { realtimeSessions[$0]?.timestamps.count } ?? 0
    }

    /// Drops the newest open session: an `error` event (or `close` when `error` is false); its
    /// later calls fail "unknown talk session".
    public func dropRealtimeSession(error: Bool = true) {
        guard let sessionId = newestOpenRealtimeSession else { return }
        sendRealtimeEvent(
            sessionId, error ? ["type": "error", "message": "provider connection lost"] : ["type": "close"])
        realtimeSessions[sessionId]?.dropped = true
        if let turn = realtimeSessions[sessionId]?.activeTurn { realtimeSessions[sessionId]?.stoppedTurns.insert(turn) }
        realtimeSessions[sessionId]?.activeTurn = nil
    }

    /// Replaces the newest open session's provider (a voice switch): the reply in progress ends,
    /// then `session.replaced` and a new `ready`.
    public func replaceRealtimeSession() {
        guard let sessionId = newestOpenRealtimeSession else { return }
        if let turn = realtimeSessions[sessionId]?.activeTurn { realtimeSessions[sessionId]?.stoppedTurns.insert(turn) }
        realtimeSessions[sessionId]?.activeTurn = nil
        sendRealtimeEvent(sessionId, ["type": "session.replaced"])
        sendRealtimeEvent(sessionId, ["type": "ready"])
    }

    /// The audio of later replies (pcm16 at 24 kHz).
    public func setRealtimeReply(_ reply: [Int16]) {
        script.realtime.reply = reply
    }

    /// Turns the emulated server VAD's turn-taking on or off.
    public func setRealtimeServerVAD(_ on: Bool) {
        script.realtime.serverVAD = on
    }

    /// Starts a reply on the newest open session without a user turn.
    public func startRealtimeReply() {
        guard let sessionId = newestOpenRealtimeSession else { return }
        startRealtimeReply(sessionId)
    }

    /// Sends a raw event on the newest open session (its `relaySessionId` added).
    public func injectRealtimeEvent(_ payload: WireObject) {
        guard let sessionId = newestOpenRealtimeSession else { return }
        sendRealtimeEvent(sessionId, payload)
    }
}
