import ClawTalkAudio
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTesting
import Testing

@testable import ClawTalkTalk

@Suite("PTT controller", .timeLimit(.minutes(1)))
struct PTTControllerTests {
    /// A controller over fakes on a manual clock (timers fire only when the test advances it).
    struct Rig {
        let capturing: FakeCapturing
        let transcriber: FakeTranscriber
        let delivery: RecordingDelivery
        let recorder: LeaseRecorder
        let clock = ManualClock()
        let controller: PTTController

        init(
            _ scripts: CaptureScript..., transcriber: FakeTranscriber = FakeTranscriber(),
            delivery: RecordingDelivery = RecordingDelivery(), talkOn: Bool = false,
            configuration: PTTConfiguration = PTTConfiguration(), speculating: Bool = false,
            logger: Logger = .discarding
        ) {
            let capturing = FakeCapturing()
            for script in scripts { capturing.append(script) }
            // The captures' own ends, not a transcription at a pause (unless `speculating`).
            var configuration = configuration
            if !speculating { configuration.speculateAfter = nil }
            self.capturing = capturing
            self.transcriber = transcriber
            self.delivery = delivery
            let recorder = LeaseRecorder()
            self.recorder = recorder
            controller = PTTController(
                capturing: capturing, transcriber: transcriber, delivery: delivery, speech: recorder,
                microphone: recorder.microphone(talkOn: talkOn), configuration: configuration, clock: clock,
                logger: logger)
        }

        func state() async -> PTTStateMachine.State { await controller.state }

        func waitForState(_ predicate: @escaping @Sendable (PTTStateMachine.State) -> Bool) async throws {
            let controller = controller
            let reached = await eventually { predicate(await controller.state) }
            let state = await controller.state
            #expect(reached, "state: \(state)")
        }
    }

    static func capturing(_ state: PTTStateMachine.State) -> Bool {
        if case .capturing = state { return true }
        return false
    }

    @Test func startThenStopIsQueuedWithTheTranscript() async throws {
        let rig = Rig(.utterance(speech: 1.0, until: 2.0))
        let start = await rig.controller.perform(.start, timeout: .seconds(15))
        let captureId = try #require(start.captureId)
        #expect(start == .started(captureId: captureId))
        #expect(await rig.controller.perform(.start) == .started(captureId: captureId), "idempotent")
        // The key is released once the controller has read the whole utterance (on a busy machine
        // it had read 0.94 s of it, and the audio sent was cut there).
        #expect(await eventually { !rig.capturing.captures.isEmpty })
        await rig.capturing.captures.first?.read()
        let stop = await rig.controller.perform(.stop, timeout: .seconds(15))
        #expect(
            stop == .finished(TalkPTTResult(captureId: captureId, transcript: "what's on my calendar", status: .queued))
        )
        #expect(try stop.payloadJSON().contains(#""status":"queued""#))
        #expect(rig.delivery.texts == ["what's on my calendar"])
        #expect(rig.delivery.sources == [.pushToTalk])
        #expect(rig.transcriber.audio.map(\.samples) == [rig.capturing.samples])
        #expect(rig.capturing.captures.map(\.outcome) == ["finished"])
        await rig.controller.settle()
        #expect(
            rig.recorder.calls == ["stopSpeech", "suspendWake", "resumeWake"],
            "speech stopped without an interruption, the microphone taken from wake and given back")
        #expect(await rig.state() == .idle)
    }

    /// With Talk mode on, Talk holds the microphone (wake is suspended already): push-to-talk
    /// pauses Talk and gives the microphone back to it.
    @Test func talkIsPausedAndResumedWhenItIsOn() async throws {
        let rig = Rig(.spoken, talkOn: true)
        _ = await rig.controller.perform(.start)
        _ = await rig.controller.perform(.cancel)
        await rig.controller.settle()
        #expect(rig.recorder.calls == ["stopSpeech", "pauseTalk", "resumeTalk"])
    }

    @Test func aCompleteVerdictAtThePauseEndsTheOnceBeforeItsSilenceWindow() async throws {
        // Speech 0.2–1.2 s, then only 0.4 s of silence and the stream stays open: the silence
        // window (0.7 s) never passes, so only the verdict of the transcription at 0.2 s can end it.
        let rig = Rig(.utterance(speech: 1.0, until: 1.6), speculating: true)
        rig.transcriber.verdict.locked { $0 = 0.9 }
        let once = await rig.controller.perform(.once, timeout: .seconds(15))
        guard case .finished(let result) = once else {
            Issue.record("once failed: \(once)")
            return
        }
        #expect(result.status == .queued)
        #expect(rig.delivery.texts == ["what's on my calendar"])
        #expect(rig.transcriber.audio.count == 1, "the pause's transcript is the capture's")
    }

    @Test func anIncompleteVerdictLeavesTheOnceOpen() async throws {
        let rig = Rig(.utterance(speech: 1.0, until: 1.6), speculating: true)
        rig.transcriber.verdict.locked { $0 = 0.1 }
        let once = Task { await rig.controller.perform(.once, timeout: .seconds(15)) }
        #expect(await eventually { rig.transcriber.audio.count == 1 }, "transcribed at the pause")
        await rig.controller.settle()
        #expect(rig.delivery.texts.isEmpty)
        #expect(await rig.state() != .idle, "still capturing: no verdict of complete, no window")
        _ = await rig.controller.perform(.cancel)
        _ = await once.value
    }

    @Test(
        arguments: [
            // (speech runs [start, end), speculation's speech end, seen until, captured s, covers)
            ([0.2..<1.2], 1.2, 1.6, 1.6, true),
            ([0.2..<1.2, 1.5..<1.8], 1.2, 2.0, 2.0, false),  // speech after the pause
            ([0.2..<1.2], 1.2, 1.3, 1.6, false),  // 0.3 s of the capture not judged yet
        ] as [([Range<Double>], Double, Double, Double, Bool)])
    func aSpeculationStandsForTheCaptureOnlyWithNoSpeechAfterIt(
        runs: [Range<Double>], speechEnd: Double, seen: Double, captured: Double, covers: Bool
    ) {
        var timeline = SpeechTimeline()
        var time = 0.0
        while time < seen - 1e-9 {
            timeline.record(UtteranceFrame(time: time, isSpeech: runs.contains { $0.contains(time + 1e-9) }, rms: 0.1))
            time += 0.02
        }
        let speculation = PTTController.Speculation(speechEnd: speechEnd, task: Task { nil })
        #expect(
            PTTController.speculationCovers(speculation, timeline: timeline, capturedSeconds: captured) == covers)
    }

    @Test func onceEndsAfterTheSilenceWindowWithoutAnyTimer() async throws {
        // Speech 0.2–1.2 s, then silence to 3 s: the frame at 1.9 s ends it. The manual clock never
        // moves, so neither the hard cap nor a timeout can be what ended it.
        let rig = Rig(.utterance(speech: 1.0, until: 3.0))
        let once = await rig.controller.perform(.once, timeout: .seconds(15))
        guard case .finished(let result) = once else {
            Issue.record("once failed: \(once)")
            return
        }
        #expect(result.status == .queued)
        #expect(result.transcript == "what's on my calendar")
        #expect(rig.delivery.texts == ["what's on my calendar"])
        #expect(rig.clock.now.offset == .zero)
    }

    @Test func onceWithoutSpeechWaitsForTheHardCap() async throws {
        let rig = Rig(.silence(3.0), transcriber: FakeTranscriber(.text("")))
        let once = Task { await rig.controller.perform(.once, timeout: .seconds(15)) }
        try await rig.clock.waitForSleeper(until: .seconds(12))
        rig.clock.advance(by: .milliseconds(11_990))
        // The barriers: the controller has read every frame of silence, and the cap still sleeps.
        #expect(await eventually { !rig.capturing.captures.isEmpty })
        await rig.capturing.captures.first?.read()
        #expect(rig.clock.sleeperDeadlines.contains(.seconds(12)))
        #expect(Self.capturing(await rig.state()), "silence alone does not end a once before the cap")
        rig.clock.advance(by: .milliseconds(10))
        let result = await once.value
        #expect(result.captureId != nil)
        guard case .finished(let finished) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(finished.status == .empty)
        #expect(finished.transcript == nil)
        #expect(rig.delivery.texts.isEmpty, "an empty transcript is not delivered")
    }

    @Test(arguments: [(15_000, 12_000), (8_000, 6_000), (30_000, 12_000)])
    func onceHardCapBeatsTheInvokeDeadline(timeoutMs: Int, capMs: Int) async throws {
        let rig = Rig(.spoken)
        let once = Task { await rig.controller.perform(.once, timeout: .milliseconds(timeoutMs)) }
        try await rig.clock.waitForSleeper(until: .milliseconds(capMs))
        rig.clock.advance(by: .milliseconds(capMs))
        guard case .finished(let result) = await once.value else {
            Issue.record("once did not finish")
            return
        }
        #expect(result.status == .queued)
        #expect(rig.clock.now.offset < .milliseconds(timeoutMs))
    }

    @Test func onceWhileCapturingPTTIsBusyWithAFreshId() async throws {
        let rig = Rig(.spoken)
        let start = await rig.controller.perform(.start)
        let busy = await rig.controller.perform(.once, timeout: .seconds(15))
        guard case .finished(let result) = busy else {
            Issue.record("\(busy)")
            return
        }
        #expect(result.status == .busy)
        #expect(result.transcript == nil)
        #expect(result.captureId != start.captureId)
        #expect(Self.capturing(await rig.state()), "the PTT capture continues")
        let stop = await rig.controller.perform(.stop)
        #expect(stop.captureId == start.captureId)
    }

    @Test func stopAndCancelWhenIdleAnswerIdleWithFreshIds() async throws {
        let rig = Rig()
        let stop = await rig.controller.perform(.stop, timeout: .seconds(15))
        let cancel = await rig.controller.perform(.cancel, timeout: .seconds(15))
        guard case .finished(let first) = stop, case .finished(let second) = cancel else {
            Issue.record("\(stop) \(cancel)")
            return
        }
        #expect(first.status == .idle)
        #expect(second.status == .idle)
        #expect(first.transcript == nil)
        #expect(first.captureId != second.captureId)
        #expect(try stop.payloadJSON().contains(#""transcript":null"#))
        #expect(rig.capturing.captures.isEmpty)
        #expect(rig.recorder.calls.isEmpty)
    }

    @Test func cancelDiscardsTheCaptureWithoutDelivering() async throws {
        let rig = Rig(.utterance(speech: 0.5, until: 1))
        let start = await rig.controller.perform(.start)
        let cancel = await rig.controller.perform(.cancel)
        #expect(cancel == .finished(TalkPTTResult(captureId: start.captureId!, transcript: nil, status: .cancelled)))
        await rig.controller.settle()
        #expect(rig.capturing.captures.map(\.outcome) == ["cancelled"])
        #expect(rig.transcriber.audio.isEmpty)
        #expect(rig.delivery.texts.isEmpty)
    }

    @Test func offlineDeliveryAnswersOfflineWithTheTranscript() async throws {
        let rig = Rig(.spoken, delivery: RecordingDelivery(.queuedOffline))
        _ = await rig.controller.perform(.start)
        let stop = await rig.controller.perform(.stop)
        guard case .finished(let result) = stop else {
            Issue.record("\(stop)")
            return
        }
        #expect(result.status == .offline)
        #expect(result.transcript == "what's on my calendar")
        rig.delivery.set(.failed("outbox full"))
        _ = await rig.controller.perform(.start)
        let failed = await rig.controller.perform(.stop)
        guard case .finished(let second) = failed else {
            Issue.record("\(failed)")
            return
        }
        #expect(second.status == .offline, "nothing was sent")
    }

    @Test func captureFailuresMapToTheContractErrors() async throws {
        let rig = Rig()
        rig.capturing.failNext(TalkError.microphoneUnavailable("no capture device could be opened"))
        let start = await rig.controller.perform(.start)
        #expect(start == .failed(.microphoneUnavailable("no capture device could be opened")))
        #expect(throws: NodeError.microphonePermissionRequired("no capture device could be opened")) {
            try start.payloadJSON()
        }
        rig.capturing.failNext(PTTFailure.microphoneBusy("held by another application"))
        let once = await rig.controller.perform(.once)
        #expect(once == .failed(.microphoneBusy("held by another application")))
        await rig.controller.settle()
        #expect(await rig.state() == .idle)
        #expect(rig.recorder.calls.suffix(2) == ["suspendWake", "resumeWake"])
    }

    @Test func transcriptionFailureIsSTTUnavailable() async throws {
        let rig = Rig(.spoken, transcriber: FakeTranscriber(.fail(.fileNotFound(path: "/models/x"))))
        _ = await rig.controller.perform(.start)
        let stop = await rig.controller.perform(.stop)
        guard case .failed(.speechToTextUnavailable(let hint)) = stop else {
            Issue.record("\(stop)")
            return
        }
        #expect(hint.contains("/models/x"))
        #expect(throws: NodeError.self) { try stop.payloadJSON() }
        #expect((try? stop.payloadJSON()) == nil)
        do {
            _ = try stop.payloadJSON()
        } catch {
            #expect(error.message.hasPrefix("STT_UNAVAILABLE: "))
            #expect(error.code == "UNAVAILABLE")
        }
    }

    @Test func slowTranscriptionIsCutShortForAWaitingInvoke() async throws {
        let rig = Rig(.spoken, transcriber: FakeTranscriber(.hang))
        _ = await rig.controller.perform(.start)
        let stop = Task { await rig.controller.perform(.stop, timeout: .seconds(3)) }
        // Budget: min(10 s, 3 s − 0.5 s margin) = 2.5 s.
        try await rig.clock.waitForSleeper(until: .milliseconds(2500))
        rig.clock.advance(by: .milliseconds(2500))
        let result = await stop.value
        #expect(result.captureId != nil)
        guard case .finished(let finished) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(finished.status == .empty, "no partial to fall back on")
    }

    @Test func cancelWhileStartingFailsTheStartWithPTTCancelled() async throws {
        let rig = Rig(.spoken)
        rig.capturing.hold()
        let start = Task { await rig.controller.perform(.start, timeout: .seconds(15)) }
        #expect(await eventually { rig.capturing.waitingCount == 1 })
        let cancel = await rig.controller.perform(.cancel, timeout: .seconds(15))
        let started = await start.value
        #expect(started == .failed(.startCancelled))
        #expect(throws: NodeError.pttCancelled) { try started.payloadJSON() }
        guard case .finished(let result) = cancel else {
            Issue.record("\(cancel)")
            return
        }
        #expect(result.status == .cancelled)
        rig.capturing.release()
        #expect(
            await eventually { rig.capturing.captures.map(\.outcome) == ["cancelled"] },
            "a capture that opens after the cancel is closed again")
        #expect(await rig.state() == .idle)
    }

    @Test func cancellingTheWaitingTaskCancelsItsOnce() async throws {
        let rig = Rig(.spoken)
        let once = Task { await rig.controller.perform(.once, timeout: .seconds(15)) }
        try await rig.waitForState(Self.capturing)
        once.cancel()
        let result = await once.value
        guard case .finished(let finished) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(finished.status == .cancelled)
        #expect(await eventually { rig.capturing.captures.map(\.outcome) == ["cancelled"] })
        #expect(rig.delivery.texts.isEmpty)
    }

    @Test func theSafetyCapFinalizesAsStopAndALaterStopGetsIdle() async throws {
        let rig = Rig(.spoken, configuration: PTTConfiguration(safetyCap: .seconds(120)))
        let start = await rig.controller.perform(.start)
        try await rig.clock.waitForSleeper(until: .seconds(120))
        rig.clock.advance(by: .seconds(120))
        #expect(await eventually { rig.delivery.texts == ["what's on my calendar"] }, "transcript delivered")
        try await rig.waitForState { $0 == .idle }
        let stop = await rig.controller.perform(.stop)
        guard case .finished(let result) = stop else {
            Issue.record("\(stop)")
            return
        }
        #expect(result.status == .idle)
        #expect(result.captureId != start.captureId)
    }

    @Test func aNewerOnceCancelsThePreviousOne() async throws {
        let rig = Rig(.spoken, .utterance(speech: 0.5, until: 2))
        let first = Task { await rig.controller.perform(.once, timeout: .seconds(15)) }
        try await rig.waitForState(Self.capturing)
        let second = await rig.controller.perform(.once, timeout: .seconds(15))
        let previous = await first.value
        guard case .finished(let old) = previous, case .finished(let new) = second else {
            Issue.record("\(previous) \(second)")
            return
        }
        #expect(old.status == .cancelled)
        #expect(new.status == .queued)
        #expect(old.captureId != new.captureId)
        #expect(rig.capturing.captures.map(\.outcome) == ["cancelled", "finished"])
        await rig.controller.settle()
        #expect(rig.recorder.calls == ["stopSpeech", "suspendWake", "resumeWake"])
    }

    @Test func shutdownEndsAnActiveCaptureCancelled() async throws {
        let rig = Rig(.spoken)
        let once = Task { await rig.controller.perform(.once, timeout: .seconds(15)) }
        try await rig.waitForState(Self.capturing)
        await rig.controller.shutdown()
        guard case .finished(let result) = await once.value else {
            Issue.record("once did not finish")
            return
        }
        #expect(result.status == .cancelled)
        #expect(rig.capturing.captures.map(\.outcome) == ["cancelled"])
        #expect(await rig.controller.perform(.start) == .failed(.startCancelled))
    }

    /// Issue 35: a stop of the service while the utterance is being transcribed loses it (the
    /// audio is only in memory); the node says so in its log, and the waiting `stop` is answered
    /// `cancelled`, not left to its timeout.
    @Test func shutdownDuringATranscriptionLogsTheUtteranceLost() async throws {
        let log = RecordingLogSink()
        let rig = Rig(
            .utterance(speech: 1.0, until: 2.0), transcriber: FakeTranscriber(.hang),
            logger: Logger(category: "test", sink: log))
        let captureId = try #require(await rig.controller.perform(.start).captureId)
        let stop = Task { await rig.controller.perform(.stop, timeout: .seconds(15)) }
        try await rig.waitForState { $0 == .finalizing(captureId: captureId) }
        #expect(await eventually { rig.transcriber.audio.count == 1 }, "the transcription is in flight")
        await rig.controller.shutdown()
        #expect(await stop.value == .finished(TalkPTTResult(captureId: captureId, transcript: nil, status: .cancelled)))
        let lost = try #require(log.records.first { $0.event == "ptt.capture.lost" }, "\(log.events)")
        #expect(lost.level == .warning)
        #expect(lost.fields["captureId"] == .string(captureId))
        #expect(rig.delivery.texts.isEmpty)
    }

    @Test func aCaptureWhoseAudioEndsIsFinalized() async throws {
        var script = CaptureScript.utterance(speech: 0.5, until: 1)
        script.endsStream = true
        let rig = Rig(script)
        let start = await rig.controller.perform(.start)
        #expect(start.captureId != nil)
        #expect(await eventually { rig.delivery.texts.count == 1 })
    }

    @Test func toggleStartsWhenIdleAndStopsOtherwise() async throws {
        let rig = Rig(.spoken)
        let first = await rig.controller.toggle()
        guard case .started(let id) = first else {
            Issue.record("\(first)")
            return
        }
        let second = await rig.controller.toggle()
        #expect(second == .finished(TalkPTTResult(captureId: id, transcript: "what's on my calendar", status: .queued)))
    }
}

@Suite("PTT silence rule")
struct SilenceDetectorTests {
    static let cases: [(frames: [(Double, Bool)], endsAt: Double?)] = [
        ([(0, false), (0.5, false), (5, false)], nil),  // no speech: never
        ([(0, true), (0.68, false)], nil),  // 680 ms < 700 ms
        ([(0, true), (0.7, false)], 0.7),  // exactly the window
        ([(0, true), (0.4, true), (1.0, false), (1.1, false)], 1.1),  // counted from the last speech
        ([(0, false), (1, true), (1.5, true), (2.19, false), (2.2, false)], 2.2),
    ]

    @Test(arguments: cases)
    func endsAfterTheWindowFromTheLastSpeech(frames: [(Double, Bool)], endsAt: Double?) {
        var detector = SilenceDetector(window: .milliseconds(700))
        var ended: Double?
        for (time, speech) in frames where ended == nil {
            if detector.ends(with: UtteranceFrame(time: time, isSpeech: speech, rms: 0)) { ended = time }
        }
        #expect(ended == endsAt)
    }

    @Test func theCJKWindowIsTwoSeconds() {
        var detector = SilenceDetector(window: .milliseconds(2000))
        let ends = [(0.0, true), (1.99, false), (2.0, false)].map { time, speech in
            detector.ends(with: UtteranceFrame(time: time, isSpeech: speech, rms: 0))
        }
        #expect(ends == [false, false, true])
    }
}
