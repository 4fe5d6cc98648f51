import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

/// Realtime Talk against the test gateway's emulated realtime provider (talk.md §9.2, §11 item 9),
/// with a clocked speaker and a scripted microphone as audio peers: what goes over the wire and
/// what plays.
@Suite(.serialized) struct RealtimeTalkSessionTests {
    /// Final transcripts in arrival order.
    final class Transcripts: Sendable {
        let list = Mutex<[(RealtimeRelayEvent.Role, String)]>([])
    }

    /// A running session over a fresh gateway.
    final class Run: Sendable {
        let harness: GatewayHarness
        let speaker = ClockedSpeaker()
        let microphone: ScriptedMicrophone
        let session: RealtimeTalkSession
        let task: Task<RealtimeTalkOutcome, Never>
        let transcripts = Transcripts()
        let sink = RecordingLogSink()

        init(
            idleTimeout: Double? = nil, captureAge: Duration? = nil,
            _ change: @Sendable (inout TestRealtimeScript) -> Void = { _ in }
        ) async throws {
            var script = OperatorScript()
            change(&script.realtime)
            harness = try GatewayHarness(script: script)
            try await harness.startOperator()
            let speaker = speaker
            microphone = ScriptedMicrophone(echo: { speaker.isPlaying }, captureAge: captureAge)
            var configuration = RealtimeTalkConfiguration(
                sessionKey: "main", language: "en-US",
                realtime: TalkRealtimeConfig(json: ["mode": "realtime", "transport": "gateway-relay", "voice": "v1"]))
            configuration.readyTimeout = .seconds(30)
            configuration.idleTimeout = idleTimeout
            let transcripts = transcripts
            let session = RealtimeTalkSession(
                session: harness.operatorSession, microphone: microphone, speaker: speaker,
                configuration: configuration,
                logger: Logger(category: "test", minimumLevel: .debug, sink: sink),
                onTranscript: { role, text, final in
                    if final { transcripts.list.locked { $0.append((role, text)) } }
                })
            self.session = session
            task = Task { await session.run() }
        }

        /// A live run whose reply, a tone of `seconds` sent in real time, has played 0.8 s.
        static func playing(
            seconds: Double, captureAge: Duration? = nil,
            _ change: @Sendable (inout TestRealtimeScript) -> Void = { _ in }
        ) async throws -> Run {
            let run = try await Run(captureAge: captureAge) {
                $0.reply = TestRealtimeScript.tone(seconds: seconds)
                $0.chunkPaceMs = 20
                change(&$0)
            }
            try await run.live()
            await run.gateway.startRealtimeReply()
            #expect(await eventually { run.speaker.snapshot.playedChunks >= 40 })
            return run
        }

        var gateway: TestGateway { harness.gateway }

        func realtime() async -> [TestRealtimeSession] { await gateway.recordedRealtimeSessions() }

        func live() async throws {
            #expect(await eventually { await self.session.state.phase == .live })
        }

        func stop() async -> RealtimeTalkOutcome {
            task.cancel()
            let outcome = await task.value
            await harness.stop()
            return outcome
        }
    }

    @Test("a whole turn: the user speaks, the server VAD ends the turn, the reply plays, every mark is acknowledged")
    func wholeTurn() async throws {
        let run = try await Run { $0.appendDelayMs = 60 }
        try await run.live()
        run.microphone.speak(seconds: 0.6)
        #expect(await eventually { await run.realtime().first?.turns.count == 1 })
        #expect(await eventually { run.transcripts.list.locked { $0.count } == 2 })
        #expect(run.transcripts.list.locked { $0.map(\.0) } == [.user, .assistant])
        #expect(run.transcripts.list.locked { $0.map(\.1) } == ["what time is it", "It is noon."])
        let reply = TestRealtimeScript().reply.count
        #expect(await eventually { run.speaker.snapshot.playedSamples == reply })
        #expect(await eventually { await run.realtime().first?.marks.allSatisfy { $0.acknowledgedAt != nil } == true })
        let session = try #require(await run.realtime().first)
        #expect(session.marks.count == 6)
        #expect(session.unknownAcknowledgements.isEmpty)
        #expect(session.cancels.isEmpty)
        let params = try #require(session.params.objectValue)
        #expect(Set(params.keys) == ["sessionKey", "mode", "transport", "brain", "voice", "language"])
        #expect(params["brain"] == "agent-consult")
        #expect(params["language"] == "en")
        #expect(await run.stop() == .ended)
    }

    @Test("appends: 20 ms of pcm16 at 24 kHz, integer timestamps from 0 in steps of 20, in order, at most 4 in flight")
    func appendsAreIntegerOrderedAndBounded() async throws {
        let run = try await Run { $0.appendDelayMs = 150 }
        try await run.live()
        #expect(await eventually { (await run.realtime().first?.timestamps.count ?? 0) >= 40 })
        let session = try #require(await run.realtime().first)
        #expect(session.timestamps == (0..<session.timestamps.count).map { Int64($0 * 20) })
        #expect(Set(session.chunkSamples) == [480])
        #expect(session.maxInFlight == 4)
        #expect(await run.stop() == .ended)
    }

    @Test("a mark is acknowledged only after the audio queued before it has played")
    func marksAfterPlayed() async throws {
        let run = try await Run {
            $0.reply = TestRealtimeScript.tone(seconds: 0.6)
            $0.chunkPaceMs = 4
        }
        try await run.live()
        await run.gateway.startRealtimeReply()
        #expect(
            await eventually {
                guard let marks = await run.realtime().first?.marks, marks.count == 3 else { return false }
                return marks.allSatisfy { $0.acknowledgedAt != nil }
            })
        let session = try #require(await run.realtime().first)
        #expect(session.marks.count == 3)
        for mark in session.marks {
            let acknowledged = try #require(mark.acknowledgedAt)
            // Sent well ahead of its audio; acknowledged no earlier than that audio could play.
            #expect(acknowledged - mark.turnStartedAt >= .milliseconds(mark.audioBeforeMs - 5))
        }
        #expect(run.speaker.snapshot.playedChunks == 30)
        #expect(await run.stop() == .ended)
    }

    @Test(
        "barge-in: speech over the reply pauses output at once, then stops it and cancels the playing turn; audio keeps flowing"
    )
    func bargeIn() async throws {
        let run = try await Run.playing(seconds: 4)
        let appendedBefore = await run.realtime().first?.timestamps.count ?? 0
        run.microphone.speak(seconds: 1.0)
        #expect(await eventually { await run.realtime().first?.cancels.count == 1 })
        // Paused at the onset, stopped once the speech went on (and the pause ended).
        #expect(run.speaker.snapshot.pauses == [true, false])
        let session = try #require(await run.realtime().first)
        #expect(session.cancels.first?.turnId == "turn-1")
        #expect(session.cancels.first?.status == "applied")
        #expect(run.speaker.snapshot.stops >= 1)
        #expect(run.speaker.snapshot.playedChunks < 200)
        #expect(session.stoppedTurns.contains("turn-1"))
        #expect(await eventually { (await run.realtime().first?.timestamps.count ?? 0) > appendedBefore + 20 })
        #expect(run.sink.events.contains("realtime.barge_in"))
        #expect(await run.stop() == .ended)
    }

    @Test("barge-in is judged on time while the gateway is slow to answer appends; the audio follows in order")
    func bargeInWhileAppendsWait() async throws {
        // 4 appends in flight, each answered after 2 s: 2 chunks a second leave, 50 are made. The
        // frame loop waited with them before, and the speech reached the onset detector minutes late.
        let run = try await Run.playing(seconds: 6) { $0.appendDelayMs = 2000 }
        run.microphone.speak(seconds: 1.0)
        #expect(await eventually { await run.realtime().first?.cancels.count == 1 })
        #expect(run.speaker.snapshot.pauses.first == true)
        let session = try #require(await run.realtime().first)
        #expect(session.timestamps == (0..<session.timestamps.count).map { Int64($0 * 20) })
        #expect(session.maxInFlight == 4)
        #expect(await run.stop() == .ended)
    }

    @Test("frames that reach the onset detector late are not judged (logged once): the reply plays on")
    func lateFramesAreNotJudged() async throws {
        let run = try await Run.playing(seconds: 2, captureAge: .seconds(1))
        run.microphone.speak(seconds: 1.0)
        #expect(await eventually { run.speaker.snapshot.playedChunks == 100 })
        #expect(run.speaker.snapshot.pauses.isEmpty)
        #expect(await run.realtime().first?.cancels.isEmpty == true)
        #expect(run.sink.events.filter { $0 == "realtime.microphone_behind" }.count == 1)
        #expect(await run.stop() == .ended)
    }

    @Test("a short sound over the reply is no onset: nothing is cancelled and the reply plays to its end")
    func shortSoundDoesNotCancel() async throws {
        let run = try await Run.playing(seconds: 2)
        run.microphone.speak(seconds: 0.04)
        #expect(await eventually { run.speaker.snapshot.playedChunks == 100 })
        #expect(run.speaker.snapshot.pauses.count % 2 == 0, "every pause ended")
        #expect(await run.realtime().first?.cancels.isEmpty == true)
        #expect(run.speaker.snapshot.stops == 0, "\(run.sink.records.map { "\($0.event) \($0.fields)" })")
        #expect(await run.stop() == .ended)
    }

    @Test("an onset the speech after the pause does not confirm resumes the reply: nothing is cancelled")
    func unconfirmedOnsetResumes() async throws {
        let run = try await Run.playing(seconds: 2)
        run.microphone.speak(seconds: 0.3)
        // Paused at the onset; the speech stopped, so the pause ended without a cancel (the
        // emulated provider's VAD takes the 0.3 s for a turn and answers: its new reply, not the
        // node, ends the old one).
        #expect(await eventually { run.speaker.snapshot.pauses == [true, false] })
        #expect(await eventually { await run.realtime().first?.turns.count == 2 })
        #expect(await run.realtime().first?.cancels.isEmpty == true)
        #expect(!run.sink.events.contains("realtime.barge_in"))
        #expect(await run.stop() == .ended)
    }

    @Test("the idle timeout ends the run after a reply and silence, and closes the session; speech keeps it going")
    func idleTimeout() async throws {
        let run = try await Run(idleTimeout: 1.0) {
            $0.reply = TestRealtimeScript.tone(seconds: 1)
            $0.chunkPaceMs = 20
        }
        try await run.live()
        // A reply (1 s) and speech (1.5 s) each count as activity: the run goes on through them.
        await run.gateway.startRealtimeReply()
        #expect(await eventually { run.speaker.snapshot.playedChunks == 50 })
        run.microphone.speak(seconds: 1.5)
        #expect(await eventually { await run.realtime().first?.turns.count == 2 })
        #expect(await run.session.state.phase == .live)
        // Then nothing: the run ends by itself and closes the session.
        #expect(await run.task.value == .idle)
        #expect(await eventually { await run.realtime().first?.closed == true })
        #expect(run.sink.events.contains("realtime.idle_timeout"))
        #expect(await run.stop() == .idle)
    }

    @Test("push-to-talk stops and cancels the reply; what is said while it holds never reaches the provider")
    func pushToTalkPreempts() async throws {
        let run = try await Run {
            $0.reply = TestRealtimeScript.tone(seconds: 3)
            $0.chunkPaceMs = 20
        }
        try await run.live()
        await run.gateway.startRealtimeReply()
        #expect(await eventually { run.speaker.snapshot.playedChunks >= 20 })
        await run.session.setPushToTalk(true)
        #expect(await eventually { await run.realtime().first?.cancels.map(\.turnId) == ["turn-1"] })
        #expect(run.speaker.snapshot.stops >= 1)
        let appended = await run.realtime().first?.timestamps.count ?? 0
        run.microphone.speak(seconds: 0.5)
        #expect(await eventually { run.microphone.pendingSpeech == 0 })
        await run.session.setPushToTalk(false)
        // Audio flows again after the release; the speech said during push-to-talk was not sent,
        // so the provider's VAD started no turn from it.
        #expect(await eventually { (await run.realtime().first?.timestamps.count ?? 0) >= appended + 30 })
        let session = try #require(await run.realtime().first)
        #expect(session.turns == ["turn-1"])
        #expect(session.timestamps == (0..<session.timestamps.count).map { Int64($0 * 20) })
        #expect(await run.stop() == .ended)
    }

    @Test("a session replaced mid-reply ends the reply and keeps Talk on the same session")
    func replacementMidReply() async throws {
        let run = try await Run {
            $0.reply = TestRealtimeScript.tone(seconds: 3)
            $0.chunkPaceMs = 20
        }
        try await run.live()
        await run.gateway.startRealtimeReply()
        #expect(await eventually { run.speaker.snapshot.playedChunks >= 10 })
        await run.gateway.replaceRealtimeSession()
        #expect(await eventually { run.speaker.snapshot.stops >= 1 })
        let played = run.speaker.snapshot.playedChunks
        #expect(played < 150)
        await run.gateway.startRealtimeReply()
        #expect(await eventually { run.speaker.snapshot.playedChunks >= played + 20 })
        #expect(await run.realtime().count == 1)
        #expect(await run.session.state.phase == .live)
        #expect(await run.stop() == .ended)
    }

    @Test("a dropped session is replaced after about 0.5 s; three failures fall back with one notice")
    func reconnectThenFallback() async throws {
        let run = try await Run()
        try await run.live()
        await run.gateway.dropRealtimeSession()
        #expect(await eventually { await run.realtime().count == 2 })
        #expect(await eventually { await run.session.state.phase == .live })
        await run.gateway.dropRealtimeSession(error: false)
        #expect(await eventually { await run.realtime().count == 3 })
        try await run.live()
        await run.gateway.dropRealtimeSession()
        let outcome = await run.task.value
        #expect(outcome == .fellBack(reason: RealtimeTalkMachine.fallbackNotice))
        #expect(run.sink.events.filter { $0 == "realtime.fallback" }.count == 1)
        #expect(await run.realtime().count == 3)
        await run.harness.stop()
    }

    @Test("creates that keep failing fall back to native Talk")
    func failedCreatesFallBack() async throws {
        let run = try await Run { $0.failCreates = 3 }
        let outcome = await run.task.value
        #expect(outcome == .fellBack(reason: RealtimeTalkMachine.fallbackNotice))
        #expect(await run.realtime().isEmpty)
        let creates = await run.gateway.observedEvents.filter {
            if case .operatorCall(_, "talk.session.create", _) = $0 { return true }
            return false
        }
        #expect(creates.count == 3)
        await run.harness.stop()
    }

    @Test("an output format clawtalk cannot play falls back at once and closes the session")
    func unsupportedFormatFallsBack() async throws {
        let run = try await Run { $0.outputEncoding = "g711_ulaw" }
        let outcome = await run.task.value
        guard case .fellBack(let reason) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(reason.contains("g711_ulaw"))
        #expect(await eventually { await run.realtime().first?.closed == true })
        await run.harness.stop()
    }

    @Test("ending Talk closes the session")
    func exitCloses() async throws {
        let run = try await Run()
        try await run.live()
        #expect(await run.stop() == .ended)
        #expect(await run.realtime().first?.closed == true)
    }

    @Test("bad input is logged once per kind and skipped; tool calls are refused; Talk goes on")
    func badInputIsSkipped() async throws {
        let run = try await Run {
            $0.reply = TestRealtimeScript.tone(seconds: 0.4)
        }
        try await run.live()
        let bad: [WireObject] = [
            ["type": "audio", "turnId": "x", "audioBase64": "%%%"],
            ["type": "audio", "turnId": "x", "audioBase64": "%%%"],
            ["type": "dance"],
            ["type": "audio", "turnId": "x", "audioBase64": "AAAA"],
            ["type": "audio", "turnId": "x", "audioBase64": .string(Data(count: 40_000).base64EncodedString())],
            ["type": "mark", "name": "m", "turnId": "never"],
            ["type": "audioDone", "turnId": "never"],
            ["type": "toolCall", "callId": "c1", "name": "lookup", "argumentsJson": "{}"],
        ]
        for payload in bad { await run.gateway.injectRealtimeEvent(payload) }
        await run.gateway.startRealtimeReply()
        #expect(await eventually { run.speaker.snapshot.playedChunks == 20 })
        #expect(await eventually { await run.realtime().first?.toolResults.count == 1 })
        let result = try #require(await run.realtime().first?.toolResults.first)
        #expect(result["callId"] == "c1")
        #expect(result["error"]?.stringValue?.isEmpty == false)
        let kinds = run.sink.records.filter { $0.event == "realtime.bad_input" }.compactMap {
            $0.fields["kind"]?.description
        }
        #expect(
            kinds.sorted() == [
                "audio_format", "malformed_base64", "oversized_chunk", "unknown_mark", "unknown_turn", "unknown_type",
            ])
        #expect(await run.session.state.phase == .live)
        #expect(await run.stop() == .ended)
    }
}
