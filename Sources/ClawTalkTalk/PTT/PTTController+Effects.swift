import ClawTalkAudio
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport

extension PTTController {
    /// Performs one side effect on the lane.
    func run(_ effect: PTTStateMachine.Action) async {
        switch effect {
        case .stopSpeech:
            if let played = await speech.stopSpeaking(recordInterruption: false) {
                logger.info("ptt.speech.stopped", ["playedSeconds": .double(played)])
            }
        case .claimMicrophone:
            await microphone?.pushToTalkBegan()
        case .releaseMicrophone:
            await microphone?.pushToTalkEnded()
        case .beginCapture(let id, let mode):
            open(id, mode: mode)
        case .finalize(let id):
            finalize(id)
        case .discard(let id):
            await discard(id)
        case .deliver(let id, let transcript):
            deliver(id, transcript: transcript)
        case .awaitPause(let id):
            awaitPause(id)
        case .respond:
            break
        }
    }

    // MARK: - Capture

    private func open(_ id: String, mode: PTTStateMachine.Mode) {
        let capturing = capturing
        opening[id] = Task {
            do {
                let capture = try await capturing.begin()
                self.opened(id, mode: mode, capture: capture)
            } catch {
                self.openFailed(id, error)
            }
        }
    }

    private func opened(_ id: String, mode: PTTStateMachine.Mode, capture: any UtteranceCapture) {
        opening[id] = nil
        active[id] = ActiveCapture(capture: capture)
        apply(.captureBegan(captureId: id))
        guard case .capturing(id, _) = machine.state else { return }
        let cap: Duration
        switch mode {
        case .ptt: cap = configuration.safetyCap
        case .once: cap = configuration.onceCap(timeout: earliestDeadline.map { $0 - elapsed() })
        }
        logger.info(
            "ptt.capture.open",
            ["captureId": .string(id), "mode": .string(mode.rawValue), "capS": .double(cap.inSeconds)])
        active[id]?.monitor = monitor(id, mode: mode, frames: capture.frames)
        let clock = clock
        active[id]?.timer = Task {
            do {
                try await clock.sleep(for: cap)
            } catch {
                return
            }
            self.apply(.hardCapReached(captureId: id))
        }
    }

    private func openFailed(_ id: String, _ error: any Error) {
        opening[id] = nil
        let failure = PTTFailure(error)
        if !(error is CancellationError) {
            logger.warning("ptt.capture.failed", ["captureId": .string(id), "error": .string(failure.description)])
        }
        apply(.captureFailed(captureId: id, failure))
    }

    /// Watches the frames and reports speech starts and pauses (silence after speech ends a
    /// `once`, and a capture whose controller is gone); the stream's end finalizes.
    private func monitor(
        _ id: String, mode: PTTStateMachine.Mode, frames: AsyncStream<UtteranceFrame>
    ) -> Task<SpeechTimeline, Never> {
        let window = configuration.silenceWindow
        let speculateAfter = configuration.speculateAfter?.inSeconds
        let logger = logger
        return Task {
            var silence = SilenceDetector(window: window)
            var timeline = SpeechTimeline()
            var speculated = false
            for await frame in frames {
                timeline.record(frame)
                if frame.isSpeech {
                    if speculated { self.dropSpeculation(id) }
                    speculated = false
                } else if let after = speculateAfter, !speculated, let last = silence.lastSpeech,
                    frame.time - last >= after - 1e-9, timeline.speechSeconds >= Self.minimumSpeculatedSpeech
                {
                    speculated = true
                    self.speculate(id, mode: mode, timeline: timeline)
                }
                switch silence.change(with: frame) {
                case .speechStarted:
                    logger.debug("ptt.speech.started", ["captureId": .string(id), "atS": .double(frame.time)])
                    self.apply(.speechStarted(captureId: id))
                case .paused:
                    logger.debug("ptt.speech.paused", ["captureId": .string(id), "atS": .double(frame.time)])
                    self.apply(.silenceElapsed(captureId: id))
                case nil: break
                }
            }
            guard !Task.isCancelled else { return timeline }
            self.apply(.captureEnded(captureId: id))
            return timeline
        }
    }

    /// Speech shorter than this is not transcribed ahead of the capture's end (0.2 s).
    static let minimumSpeculatedSpeech = 0.2

    /// Transcribes capture `id` up to its pause with an end-of-turn verdict; a `once` that the
    /// verdict calls complete ends at once, as after its silence window.
    private func speculate(_ id: String, mode: PTTStateMachine.Mode, timeline: SpeechTimeline) {
        guard let entry = active[id], let speechEnd = timeline.speech.last?.upperBound else { return }
        entry.speculation?.task.cancel()
        var turnOptions = configuration.transcription
        turnOptions.detectTurn = true
        let options = turnOptions
        let limit = configuration.transcriptionTimeout
        let threshold = configuration.turnCompleteThreshold
        let transcriber = transcriber
        let clock = clock
        let logger = logger
        let capture = entry.capture
        let task = Task<Transcript?, Never> {
            let audio = timeline.judged(await capture.snapshot())
            guard !audio.samples.isEmpty,
                let transcript = try? await Self.limited(
                    limit, clock: clock,
                    operation: {
                        try await transcriber.transcribe(audio, options: options)
                    })
            else { return nil }
            let complete = (transcript.turnComplete ?? 0) >= threshold && !transcript.text.isEmpty
            logger.debug(
                "ptt.speculation",
                [
                    "captureId": .string(id), "speechEndS": .double(speechEnd),
                    "turnComplete": .double(transcript.turnComplete ?? -1), "endsTurn": .bool(complete),
                ])
            if complete, mode == .once, self.active[id]?.speculation?.speechEnd == speechEnd {
                self.apply(.silenceElapsed(captureId: id))
            }
            return transcript
        }
        active[id]?.speculation = Speculation(speechEnd: speechEnd, task: task)
    }

    /// Speech went on after a pause: its speculative transcription no longer stands for the capture.
    private func dropSpeculation(_ id: String) {
        active[id]?.speculation?.task.cancel()
        active[id]?.speculation = nil
    }

    /// The capture's controller is gone: it ends at its next pause, at the latest after
    /// ``PTTConfiguration/controllerLossCap``.
    private func awaitPause(_ id: String) {
        guard active[id] != nil else { return }
        let cap = configuration.controllerLossCap
        logger.notice("ptt.controller.gone", ["captureId": .string(id), "waitS": .double(cap.inSeconds)])
        let clock = clock
        active[id]?.lossTimer?.cancel()
        active[id]?.lossTimer = Task {
            do {
                try await clock.sleep(for: cap)
            } catch {
                return
            }
            self.apply(.lossCapReached(captureId: id))
        }
    }

    /// Logs a capture that ends because its controller is gone, with why it ended then.
    func logControllerLoss(_ event: PTTStateMachine.Event, _ actions: [PTTStateMachine.Action]) {
        guard let id = machine.finalizingWithoutController, actions.contains(.finalize(captureId: id)) else { return }
        let reason: String
        switch event {
        case .connectionClosed, .captureBegan: reason = "nothing-said"
        case .silenceElapsed: reason = "pause"
        case .lossCapReached: reason = "loss-cap"
        case .hardCapReached: reason = "safety-cap"
        default: reason = "audio-ended"
        }
        logger.notice("ptt.capture.ended_without_controller", ["captureId": .string(id), "reason": .string(reason)])
    }

    private func discard(_ id: String) async {
        opening.removeValue(forKey: id)?.cancel()
        if let transcription = finalizing.removeValue(forKey: id) {
            // Only a shutdown discards a capture being finalized (a `cancel` waits for its
            // result): the utterance is neither transcribed nor delivered, and says so.
            transcription.cancel()
            logger.warning(
                "ptt.capture.lost",
                ["captureId": .string(id), "reason": "the service stopped during its transcription"])
        }
        guard let entry = active.removeValue(forKey: id) else { return }
        entry.cancelTasks()
        await entry.capture.cancel()
        logger.info("ptt.capture.discarded", ["captureId": .string(id)])
    }

    // MARK: - Finalize

    private func finalize(_ id: String) {
        guard let entry = active.removeValue(forKey: id) else {
            apply(.finalResult(captureId: id, transcript: nil))
            return
        }
        entry.cancelTasks()
        let limit = budget(configuration.transcriptionTimeout) ?? configuration.transcriptionTimeout
        let transcriber = transcriber
        let options = configuration.transcription
        let clock = clock
        let logger = logger
        finalizing[id] = Task {
            let captured = await entry.capture.finish()
            let timeline = await entry.monitor?.value
            // Long silences out: Whisper repeats the text into a silent 30 s window; and no
            // silence alone is ever sent.
            let audio = timeline?.trimmed(captured) ?? captured
            logger.info(
                "ptt.capture.finished",
                ["captureId": .string(id), "audioS": .double(captured.duration), "sentS": .double(audio.duration)])
            if let speculation = entry.speculation, let timeline,
                Self.speculationCovers(speculation, timeline: timeline, capturedSeconds: captured.duration),
                let transcript = await speculation.task.value, transcript.turnComplete != nil
            {
                logger.info(
                    "ptt.transcribed",
                    [
                        "captureId": .string(id), "engine": .string(transcript.engine), "speculative": .bool(true),
                        "seconds": .double(transcript.processingSeconds), "transcript": .string(transcript.text),
                    ])
                self.finalized(id, .finalResult(captureId: id, transcript: transcript.text))
                return
            }
            entry.speculation?.task.cancel()
            let event = await Self.transcribe(
                id, audio: audio, transcriber: transcriber, options: options, limit: limit, clock: clock,
                logger: logger)
            self.finalized(id, event)
        }
    }

    private func finalized(_ id: String, _ event: PTTStateMachine.Event?) {
        finalizing[id] = nil
        if let event { apply(event) }
    }

    /// Whether a speculation stands for the whole capture: no speech after its own, and the
    /// frames after it were judged (at most 100 ms of the capture's end was not).
    static func speculationCovers(_ speculation: Speculation, timeline: SpeechTimeline, capturedSeconds: Double)
        -> Bool
    {
        guard let last = timeline.speech.last, last.upperBound <= speculation.speechEnd + 1e-6 else { return false }
        return capturedSeconds - timeline.seenUntil <= 0.1
    }

    /// The finalize event for `audio`; nil when cancelled (discarded meanwhile).
    private static func transcribe(
        _ id: String, audio: PCMBuffer, transcriber: any Transcriber, options: TranscriptionOptions,
        limit: Duration, clock: any Clock<Duration>, logger: Logger
    ) async -> PTTStateMachine.Event? {
        guard !audio.samples.isEmpty else { return .finalResult(captureId: id, transcript: nil) }
        do {
            let transcript = try await limited(limit, clock: clock) {
                do {
                    return try await transcriber.transcribe(audio, options: options)
                } catch let error where !(error is CancellationError) && !Task.isCancelled {
                    // Once more with the same audio (a server that restarted closes the
                    // connection before answering); the limit covers both attempts.
                    logger.warning(
                        "ptt.transcribe.retry", ["captureId": .string(id), "error": .string("\(error)")])
                    return try await transcriber.transcribe(audio, options: options)
                }
            }
            logger.info(
                "ptt.transcribed",
                [
                    "captureId": .string(id), "engine": .string(transcript.engine),
                    "seconds": .double(transcript.processingSeconds), "transcript": .string(transcript.text),
                ])
            return .finalResult(captureId: id, transcript: transcript.text)
        } catch is TimeoutError {
            logger.warning("ptt.transcribe.timeout", ["captureId": .string(id), "limitS": .double(limit.inSeconds)])
            return .finalizeTimedOut(captureId: id, lastPartial: nil)
        } catch {
            if Task.isCancelled || error is CancellationError { return nil }
            let hint = PTTFailure.oneLine("\(error)")
            logger.error("ptt.transcribe.failed", ["captureId": .string(id), "error": .string(hint)])
            return .finalizeFailed(captureId: id, .speechToTextUnavailable(hint))
        }
    }

    private static func limited<C: Clock<Duration>, T: Sendable>(
        _ limit: Duration, clock: C, operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withTimeout(limit, clock: clock, operation: operation)
    }

    // MARK: - Deliver

    private func deliver(_ id: String, transcript: String) {
        let budget = budget(nil)
        let delivery = delivery
        let clock = clock
        let logger = logger
        // Unstructured on purpose: the delivery carries on when the budget runs out first.
        let work = Task { await delivery.deliver(transcript, source: .pushToTalk) }
        children.spawn {
            let event = await Self.outcome(of: work, within: budget, clock: clock, logger: logger, id: id)
            await self.apply(event)
        }
    }

    /// The event for a delivery: its receipt's, or `queued` when `budget` runs out first (the
    /// delivery carries on).
    private static func outcome(
        of work: Task<DeliveryReceipt, Never>, within budget: Duration?, clock: any Clock<Duration>, logger: Logger,
        id: String
    ) async -> PTTStateMachine.Event {
        guard let budget else { return outcome(for: await work.value, logger: logger, id: id) }
        let slow = PTTStateMachine.Event.delivered(captureId: id, status: .queued)
        let answer = try? await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<PTTStateMachine.Event, any Error>) in
            let once = ResumeOnce(continuation)
            let timer = Task {
                try? await clock.sleep(for: budget)
                guard !Task.isCancelled else { return }
                logger.notice("ptt.deliver.slow", ["captureId": .string(id), "afterS": .double(budget.inSeconds)])
                once.resume(returning: slow)
            }
            // Unstructured on purpose: it resumes the race's continuation when the delivery ends,
            // which may be long after the budget answered.
            Task {
                let receipt = await work.value
                timer.cancel()
                once.resume(returning: outcome(for: receipt, logger: logger, id: id))
            }
        }
        return answer ?? slow
    }

    /// `queued` for a sent transcript; kept in the outbox (`queued` for a gateway-started
    /// capture, else `offline`); `offline` when it was not kept.
    static func outcome(for receipt: DeliveryReceipt, logger: Logger, id: String) -> PTTStateMachine.Event {
        switch receipt.outcome {
        case .sent(let route):
            logger.info("ptt.delivered", ["captureId": .string(id), "route": .string(route.rawValue)])
            return .delivered(captureId: id, status: .queued)
        case .queuedOffline:
            logger.notice("ptt.delivered.offline", ["captureId": .string(id)])
            return .keptInOutbox(captureId: id)
        case .failed(let reason):
            logger.warning("ptt.deliver.failed", ["captureId": .string(id), "error": .string(reason)])
            return .delivered(captureId: id, status: .offline)
        }
    }
}
