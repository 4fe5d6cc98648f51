import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkSupport

extension TalkModeController {
    /// Performs one effect on the lane.
    func run(_ effect: Effect) async {
        switch effect {
        case .open(let id): await open(id)
        case .close(let id): await close(id)
        case .finish(let id): finish(id)
        case .speculate(let id, let number): speculate(id, number: number)
        case .check(let id, let end): checkBargeIn(id, end: end)
        case .other(let action): await run(action)
        }
    }

    private func run(_ action: TalkModeStateMachine.Action) async {
        switch action {
        case .send(let transcript):
            send(transcript)
        case .stopSpeech(let record):
            let played = await speech.stopSpeaking(recordInterruption: record)
            logger.info(
                "talk.speech.stopped", ["playedSeconds": .double(played ?? 0), "interruption": .bool(record)])
        case .pauseReply(let on):
            hooks.pauseReply(on)
            if on { pausesRun += 1 }
            let at = current.flatMap { captures[$0]?.lastFrame } ?? 0
            var fields: [String: LogValue] = ["on": .bool(on), "atS": .double(at)]
            if on {
                // The double-talk test's view of the onset (issue 15: a false pause's cause).
                if let gain = machine.echoPath.gain { fields["echoGain"] = .double(gain) }
                fields["beyondEchoS"] = .double(machine.bargeInDetector.run.secondsOverEcho)
                fields["clearlyBeyondEchoS"] = .double(machine.bargeInDetector.run.secondsClearlyOverEcho)
                fields["echoExcess"] = .double(machine.bargeInDetector.run.highestEchoExcess)
                fields["runS"] = .double(machine.bargeInDetector.run.seconds)
                fields["runLevel"] = .double(machine.bargeInDetector.run.recentLevel)
                fields["runPeakRms"] = .double(machine.bargeInDetector.run.loudestLevel)
                fields["bandExcess"] = .double(machine.bargeInDetector.run.highestBandExcess)
                fields["unexplained"] = .double(machine.bargeInDetector.run.highestUnexplainedShare)
                fields["bandsBeyondEchoS"] = .double(machine.bargeInDetector.run.secondsOverEchoInABand)
            }
            logger.debug("talk.pause", fields)
        case .cancelBargeInCheck:
            check?.cancel()
            check = nil
        case .report(let params):
            report(params)
        case .claimMicrophone:
            await hooks.microphone?.talkEntered()
        case .releaseMicrophone:
            await hooks.microphone?.talkExited()
        case .resetSpeechSession:
            await hooks.resetSpeechSession()
        case .restartTurn:
            logger.debug("talk.turn.dropped", [:])
        case .startCapture, .cancelCapture, .finishCapture, .checkBargeIn, .keepInterruptingSpeech, .trimTurnEnd,
            .trimCheckEnd, .interruptingSpeechStarts, .speculate, .dropSpeculation:
            break  // mapped to capture effects
        }
    }

    // MARK: - Capture

    private func open(_ id: Int) async {
        guard captures[id] != nil else { return }
        do {
            let opened = try await capturing.begin()
            guard captures[id] != nil else {
                await opened.cancel()
                return
            }
            captures[id]?.capture = opened
            captures[id]?.monitor = monitor(opened.frames, generation: id)
        } catch {
            // CancellationError: the microphone closed because the service is stopping.
            if !(error is CancellationError) {
                logger.warning("talk.capture.failed", ["error": .string("\(error)")])
            }
            captures[id] = nil
            guard current == id else { return }
            current = nil
            apply(.captureLost)
        }
    }

    /// Feeds the frames of capture `generation` to the machine.
    private func monitor(_ frames: AsyncStream<UtteranceFrame>, generation: Int) -> Task<Void, Never> {
        // Unstructured on purpose: its handle is the capture's (`OpenCapture.monitor`), cancelled
        // when the capture closes.
        Task {
            var previous: Double?
            for await frame in frames {
                guard !Task.isCancelled else { return }
                let seconds = previous.map { max(frame.time - $0, 0) } ?? 0.02
                previous = frame.time
                self.frame(frame, seconds: seconds, generation: generation)
            }
            guard !Task.isCancelled else { return }
            self.captureEnded(generation)
        }
    }

    private func frame(_ frame: UtteranceFrame, seconds: Double, generation: Int) {
        guard current == generation, var open = captures[generation] else { return }
        if frame.isSpeech {
            if open.firstSpeech == nil { open.firstSpeech = frame.time }
            if open.runStart == nil { open.runStart = frame.time }
        } else {
            open.runStart = nil
        }
        open.levels.add(frame.rms, speech: frame.isSpeech)
        open.lastFrame = frame.time
        open.lastFrameEnd = frame.time + seconds
        captures[generation] = open
        let silence = replySilence(at: frame.timestampNanoseconds)
        let held = machine.bargeInDetector.onsetsHeldBack
        if machine.phase == .speaking, frame.isSpeech || machine.bargeInDetector.run.seconds > 0,
            logger.isEnabled(.debug)
        {
            trace(frame)
        }
        apply(
            .audio(
                isSpeech: frame.isSpeech, seconds: seconds, rms: frame.rms, silence: silence, echo: frame.echoActive,
                reference: frame.reference))
        if machine.bargeInDetector.onsetsHeldBack > held {
            // An onset by length and level that the double-talk test took for the reply's echo:
            // 0 false pauses mean something only beside how many it held (issue 15).
            var fields: [String: LogValue] = [
                "atS": .double(open.runStart ?? frame.time), "runS": .double(machine.bargeInDetector.run.seconds),
                "runPeakRms": .double(machine.bargeInDetector.run.loudestLevel),
                "residualRms": .double(machine.residualLevel),
                "echoExcess": .double(machine.bargeInDetector.run.highestEchoExcess),
                "bandExcess": .double(machine.bargeInDetector.run.highestBandExcess),
                "unexplained": .double(machine.bargeInDetector.run.highestUnexplainedShare),
            ]
            if let gain = machine.echoPath.gain { fields["echoGain"] = .double(gain) }
            logger.debug("talk.onset.held", fields)
        }
    }

    /// One frame of a speech run (and the frame that ends it) while the reply plays, as the
    /// double-talk tests see it: the data to choose their rules by (issue 15; debug level only).
    private func trace(_ frame: UtteranceFrame) {
        var fields: [String: LogValue] = [
            "t": .double(frame.time), "speech": .bool(frame.isSpeech), "rms": .double(frame.rms),
            "residualRms": .double(machine.residualLevel), "paused": .bool(machine.isReplyPaused),
        ]
        let path = machine.echoPath
        if let excess = path.excess(frame.reference) { fields["excess"] = .double(excess) }
        if let bands = path.bandExcess(frame.reference) {
            fields["bandExcess"] = .double(bands.highest)
            fields["unexplained"] = .double(bands.unexplained)
        }
        logger.debug("talk.frame", fields)
    }

    /// Seconds the paused reply had been silent when a frame stamped `stamp` was captured: 0
    /// before the pause took effect (or before its hook ran), nil when the playback or the
    /// capture does not tell (the machine then counts the settle in captured audio).
    private func replySilence(at stamp: UInt64?) -> Double? {
        guard machine.isReplyPaused, let silentSince = hooks.replySilentSince, let stamp else { return nil }
        guard pausesRun == pausesDecided, let since = silentSince(), stamp > since else { return 0 }
        return Double(stamp - since) / 1_000_000_000
    }

    private func captureEnded(_ generation: Int) {
        guard current == generation else { return }
        logger.warning("talk.capture.ended", [:])
        current = nil
        captures[generation] = nil
        apply(.captureLost)
    }

    private func close(_ id: Int?) async {
        guard let id, let open = captures.removeValue(forKey: id) else { return }
        open.monitor?.cancel()
        open.speculation?.task.cancel()
        await open.capture?.cancel()
    }

    private func finish(_ id: Int?) {
        guard let id, let open = captures.removeValue(forKey: id), let running = open.capture else {
            apply(.transcribed(nil))
            return
        }
        open.monitor?.cancel()
        let start = Self.turnAudioStart(open, baseConfiguration)
        let end = open.turnEnd
        let transcriber = transcriber
        let options = baseConfiguration.transcription
        let limit = baseConfiguration.transcriptionTimeout
        let logger = logger
        let speculation = open.speculation
        children.spawn {
            let captured = await running.finish()
            // Nothing but silence came after the speculation's audio: its transcript is the turn's.
            // Used when the engine judges turns (clawtalk-speech); others transcribe the turn as
            // it ended, as their text may change with the silence after it.
            if let speculation, let transcript = await speculation.task.value, transcript.turnComplete != nil {
                logger.info(
                    "talk.transcribed",
                    [
                        "what": .string("turn"), "speculation": .int(speculation.number),
                        "audioS": .double(transcript.audioSeconds), "seconds": .double(transcript.processingSeconds),
                        "transcript": .string(transcript.text),
                    ])
                await self.transcribed(transcript.text, turn: id)
                return
            }
            let audio = Self.trim(captured, from: start, to: end)
            let text = await Self.transcribe(audio, transcriber, options, limit: limit, logger: logger, what: "turn")
            await self.transcribed(text, turn: id)
        }
    }

    /// Transcribes the turn so far with an end-of-turn verdict (the turn paused); a verdict of
    /// complete ends the turn at once (``TalkModeStateMachine/Event/turnComplete(speculation:)``).
    private func speculate(_ id: Int?, number: Int) {
        guard let id, let open = captures[id], let running = open.capture, open.speculation == nil else { return }
        let start = Self.turnAudioStart(open, baseConfiguration)
        var turnOptions = baseConfiguration.transcription
        turnOptions.detectTurn = true
        let options = turnOptions
        let transcriber = transcriber
        let limit = baseConfiguration.transcriptionTimeout
        let threshold = baseConfiguration.turnCompleteThreshold
        let logger = logger
        let task = Task<Transcript?, Never> {
            let audio = Self.trim(await running.snapshot(), from: start)
            guard
                let transcript = await Self.transcription(
                    audio, transcriber, options, limit: limit, logger: logger, what: "speculation")
            else { return nil }
            let complete = (transcript.turnComplete ?? 0) >= threshold && !transcript.text.isEmpty
            logger.debug(
                "talk.speculation",
                [
                    "speculation": .int(number), "turnComplete": .double(transcript.turnComplete ?? -1),
                    "endsTurn": .bool(complete),
                ])
            if complete { self.apply(.turnComplete(speculation: number)) }
            return transcript
        }
        captures[id]?.speculation = Speculation(number: number, task: task)
    }

    private func transcribed(_ text: String?, turn: Int) {
        // A newer capture means this turn was abandoned (Talk left and re-entered).
        guard generation == turn else { return }
        apply(.transcribed(text))
    }

    /// Where a turn's audio starts (capture seconds): ``TalkModeConfiguration/leadIn`` before the
    /// interrupting speech of a barge-in (the reply's echo lies before it), else
    /// ``TalkModeConfiguration/turnLeadIn`` before the first speech frame.
    static func turnAudioStart(_ open: OpenCapture, _ configuration: TalkModeConfiguration) -> Double {
        if let interruption = open.turnStart { return max(interruption - configuration.leadIn, 0) }
        return max((open.firstSpeech ?? 0) - configuration.turnLeadIn, 0)
    }

    /// `audio` from `seconds` on, up to `end` (capture seconds; nil: to its end).
    static func trim(_ audio: PCMBuffer, from seconds: Double, to end: Double? = nil) -> PCMBuffer {
        let rate = Double(audio.format.sampleRate)
        let count = audio.samples.count
        let skip = min(max(Int(seconds * rate), 0), count)
        let stop = end.map { min(max(Int($0 * rate), skip), count) } ?? count
        guard skip > 0 || stop < count else { return audio }
        return PCMBuffer(format: audio.format, samples: Array(audio.samples[skip..<stop]))
    }

    /// The transcript of `audio`, nil when empty, failed or too slow.
    static func transcribe(
        _ audio: PCMBuffer, _ transcriber: any Transcriber, _ options: TranscriptionOptions, limit: Duration,
        logger: Logger, what: String
    ) async -> String? {
        await transcription(audio, transcriber, options, limit: limit, logger: logger, what: what)?.text
    }

    /// The transcription of `audio`: one more attempt with the same audio when the first fails
    /// or times out (a server that restarted, or a request stuck behind one nobody waits for);
    /// nil when both fail, when cancelled, or for no audio. A failure is logged as one, never
    /// passed off as silence.
    static func transcription(
        _ audio: PCMBuffer, _ transcriber: any Transcriber, _ options: TranscriptionOptions, limit: Duration,
        logger: Logger, what: String
    ) async -> Transcript? {
        guard !audio.samples.isEmpty else { return nil }
        for attempt in 1...2 {
            do {
                let transcript = try await withTimeout(limit) {
                    try await transcriber.transcribe(audio, options: options)
                }
                logger.info(
                    "talk.transcribed",
                    [
                        "what": .string(what), "audioS": .double(audio.duration), "attempt": .int(attempt),
                        "seconds": .double(transcript.processingSeconds), "transcript": .string(transcript.text),
                    ])
                return transcript
            } catch {
                if error is CancellationError || Task.isCancelled { return nil }
                let level: LogLevel = attempt == 1 ? .warning : .error
                logger.log(
                    level, attempt == 1 ? "talk.transcribe.retry" : "talk.transcribe.failed",
                    ["what": .string(what), "attempt": .int(attempt), "error": .string("\(error)")])
            }
        }
        return nil
    }

    // MARK: - Delivery

    private func send(_ transcript: String) {
        let delivery = delivery
        let logger = logger
        children.spawn {
            let receipt = await delivery.deliver(transcript, source: .talkMode)
            let expectsReply: Bool
            switch receipt.outcome {
            case .sent(let route):
                logger.info("talk.sent", ["route": .string(route.rawValue), "id": .string(receipt.id)])
                expectsReply = true
            case .queuedOffline:
                logger.notice("talk.sent.offline", ["id": .string(receipt.id)])
                expectsReply = false
            case .failed(let reason):
                logger.warning("talk.send.failed", ["error": .string(reason)])
                expectsReply = false
            }
            await self.apply(.delivered(expectsReply: expectsReply))
        }
    }

    // MARK: - Barge-in

    private func checkBargeIn(_ id: Int?, end: Double?) {
        guard let id, let open = captures[id], let running = open.capture else {
            apply(.bargeInTranscript(nil))
            return
        }
        let start = max((checkStart ?? open.firstSpeech ?? 0) - baseConfiguration.leadIn, 0)
        let transcriber = transcriber
        let options = baseConfiguration.transcription
        // As long as a turn may take: a slow confirmation still stops the reply, or (when the
        // reply ended meanwhile) still decides whether the speech is the next turn.
        let limit = baseConfiguration.transcriptionTimeout
        let logger = logger
        logger.debug("talk.check", ["fromS": .double(start), "toS": .double(end ?? open.lastFrame)])
        check?.cancel()
        check = Task {
            let audio = Self.trim(await running.snapshot(), from: start, to: end)
            let text = await Self.transcribe(
                audio, transcriber, options, limit: limit, logger: logger, what: "barge-in")
            guard !Task.isCancelled else { return }
            self.apply(.bargeInTranscript(text))
        }
    }
}
