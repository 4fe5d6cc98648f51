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
        case .pauseTalk:
            talkWasListening = await lease.pauseTalk()
        case .suspendWake:
            await lease.suspendWake()
        case .resumeWake:
            await lease.resumeWake()
        case .resumeTalk:
            if talkWasListening {
                talkWasListening = false
                await lease.resumeTalk()
            }
        case .beginCapture(let id, let mode):
            open(id, mode: mode)
        case .finalize(let id):
            finalize(id)
        case .discard(let id):
            await discard(id)
        case .deliver(let id, let transcript):
            deliver(id, transcript: transcript)
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

    /// Watches the frames: silence after speech ends a `once`; the stream's end finalizes.
    private func monitor(
        _ id: String, mode: PTTStateMachine.Mode, frames: AsyncStream<UtteranceFrame>
    ) -> Task<Void, Never> {
        let window = configuration.silenceWindow
        return Task {
            var silence = SilenceDetector(window: window)
            for await frame in frames {
                if silence.ends(with: frame), mode == .once {
                    self.apply(.silenceElapsed(captureId: id))
                    return
                }
            }
            guard !Task.isCancelled else { return }
            self.apply(.captureEnded(captureId: id))
        }
    }

    private func discard(_ id: String) async {
        opening.removeValue(forKey: id)?.cancel()
        finalizing.removeValue(forKey: id)?.cancel()
        guard let entry = active.removeValue(forKey: id) else { return }
        entry.monitor?.cancel()
        entry.timer?.cancel()
        await entry.capture.cancel()
        logger.info("ptt.capture.discarded", ["captureId": .string(id)])
    }

    // MARK: - Finalize

    private func finalize(_ id: String) {
        guard let entry = active.removeValue(forKey: id) else {
            apply(.finalResult(captureId: id, transcript: nil))
            return
        }
        entry.monitor?.cancel()
        entry.timer?.cancel()
        let limit = budget(configuration.transcriptionTimeout) ?? configuration.transcriptionTimeout
        let transcriber = transcriber
        let options = configuration.transcription
        let clock = clock
        let logger = logger
        finalizing[id] = Task {
            let audio = await entry.capture.finish()
            logger.info("ptt.capture.finished", ["captureId": .string(id), "audioS": .double(audio.duration)])
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

    /// The finalize event for `audio`; nil when cancelled (discarded meanwhile).
    private static func transcribe(
        _ id: String, audio: PCMBuffer, transcriber: any Transcriber, options: TranscriptionOptions,
        limit: Duration, clock: any Clock<Duration>, logger: Logger
    ) async -> PTTStateMachine.Event? {
        guard !audio.samples.isEmpty else { return .finalResult(captureId: id, transcript: nil) }
        do {
            let transcript = try await limited(limit, clock: clock) {
                try await transcriber.transcribe(audio, options: options)
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
        let work = Task { await delivery.deliver(transcript, source: .pushToTalk) }
        Task {
            let status = await Self.status(of: work, within: budget, clock: clock, logger: logger, id: id)
            self.apply(.delivered(captureId: id, status: status))
        }
    }

    /// The PTT status of a delivery: its receipt's, or `queued` when `budget` runs out first
    /// (the delivery carries on).
    private static func status(
        of work: Task<DeliveryReceipt, Never>, within budget: Duration?, clock: any Clock<Duration>, logger: Logger,
        id: String
    ) async -> TalkPTTStatus {
        guard let budget else { return status(for: await work.value, logger: logger, id: id) }
        let answer = try? await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<TalkPTTStatus, any Error>) in
            let once = ResumeOnce(continuation)
            let timer = Task {
                try? await clock.sleep(for: budget)
                guard !Task.isCancelled else { return }
                logger.notice("ptt.deliver.slow", ["captureId": .string(id), "afterS": .double(budget.inSeconds)])
                once.resume(returning: .queued)
            }
            Task {
                let receipt = await work.value
                timer.cancel()
                once.resume(returning: status(for: receipt, logger: logger, id: id))
            }
        }
        return answer ?? .queued
    }

    /// `queued` for a sent transcript; `offline` when it is only in the outbox or was not kept.
    static func status(for receipt: DeliveryReceipt, logger: Logger, id: String) -> TalkPTTStatus {
        switch receipt.outcome {
        case .sent(let route):
            logger.info("ptt.delivered", ["captureId": .string(id), "route": .string(route.rawValue)])
            return .queued
        case .queuedOffline:
            logger.notice("ptt.delivered.offline", ["captureId": .string(id)])
            return .offline
        case .failed(let reason):
            logger.warning("ptt.deliver.failed", ["captureId": .string(id), "error": .string(reason)])
            return .offline
        }
    }
}
