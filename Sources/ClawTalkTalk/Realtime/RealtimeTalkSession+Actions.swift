import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import Foundation

extension RealtimeTalkSession {
    /// Applies `event` to the machine and performs its actions.
    func apply(_ event: RealtimeTalkMachine.Event) {
        perform(machine.handle(event))
    }

    func perform(_ actions: [RealtimeTalkMachine.Action]) {
        for action in actions { perform(action) }
        // A new reply (also one that replaces the playing one: output stopped and starts again
        // after silence) is watched from its start, with the hold-off while the canceller
        // converges, as native Talk watches each reply (talk.md §5.5).
        let playing = machine.playingTurn
        if bargeIn.isPaused, playing != outputTurn {
            // The paused reply ended (stopped, replaced, cleared): nothing left to confirm.
            bargeIn.outputEnded()
            pausedAt = nil
            speaker.setPaused(false)
        }
        if let playing, playing != outputTurn {
            onset.outputStarted()
            bargeIn.outputStarted()
        } else if playing == nil, outputTurn != nil {
            onset.outputEnded()
            bargeIn.outputEnded()
        }
        outputTurn = playing
    }

    private func perform(_ action: RealtimeTalkMachine.Action) {
        switch action {
        case .create:
            create()
        case .startMicrophone:
            startMicrophone()
        case .play(let sequence):
            let rate = current?.output.sampleRateHz ?? RealtimeAudioFormat.pcm16At24k.sampleRateHz
            let item = speaker.enqueue(pendingSamples, sampleRate: rate)
            items[sequence] = item
            work.append { [weak self] in
                await item.done()
                await self?.yield(.played(sequence))
            }
        case .dropOldest(let sequence, let log):
            items.removeValue(forKey: sequence)?.cancel()
            if log { logger.warning("realtime.queue_full", ["turnId": .string(machine.playingTurn ?? "-")]) }
        case .stopOutput:
            speaker.stop()
            for item in items.values { item.cancel() }
            items = [:]
        case .cancelOutput(let turnId):
            guard let sessionId = current?.sessionId else { return }
            let session = session
            let logger = logger
            work.append {
                do {
                    let params = try WireJSON(
                        encoding: TalkSessionCancelOutputParams(sessionId: sessionId, turnId: turnId))
                    let answer = try await session.call(OperatorMethod.talkSessionCancelOutput.rawValue, params: params)
                    logger.info(
                        "realtime.cancel_output",
                        ["turnId": .string(turnId), "status": .string(TalkSessionCancelStatus(json: answer).rawValue)])
                } catch {
                    logger.warning("realtime.cancel_output_failed", ["error": .string("\(error)")])
                }
            }
        case .acknowledgeMark(let name):
            acknowledge(name)
        case .closeSession:
            guard let created = current else { return }
            current = nil
            let session = session
            let logger = logger
            work.append {
                do {
                    let params = try WireJSON(encoding: TalkSessionCloseParams(sessionId: created.sessionId))
                    _ = try await session.call(
                        OperatorMethod.talkSessionClose.rawValue, params: params, timeout: .seconds(5))
                    logger.info("realtime.closed", ["sessionId": .string(created.sessionId)])
                } catch {
                    logger.debug("realtime.close_failed", ["error": .string("\(error)")])
                }
            }
        case .scheduleRetry(let seconds):
            logger.warning("realtime.retry", ["afterS": .double(seconds), "failures": .int(machine.failures)])
            work.append { [weak self] in
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                await self?.yield(.retryDue)
            }
        case .fallBack(let notice):
            logger.notice("realtime.fallback", ["notice": .string(notice)])
            outcome = .fellBack(reason: notice)
        case .logBadInput(let error):
            logger.warning("realtime.bad_input", ["kind": .string(error.kind), "detail": .string(error.description)])
        }
    }

    private func create() {
        generation += 1
        current = nil
        early = []
        let generation = generation
        let session = session
        let configuration = configuration
        let params =
            (configuration.realtime ?? TalkRealtimeConfig(json: [:]))?.createParams(
                sessionKey: configuration.sessionKey, language: configuration.language)
            ?? RealtimeSessionCreateParams(sessionKey: configuration.sessionKey, language: configuration.language)
        work.append { [weak self] in
            do {
                let answer = try await session.call(
                    OperatorMethod.talkSessionCreate.rawValue, params: try WireJSON(encoding: params),
                    timeout: configuration.createTimeout)
                let created = try RealtimeSessionCreated(json: answer)
                await self?.yield(.created(generation: generation, created))
            } catch {
                await self?.yield(.createFailed(generation: generation, "\(error)"))
            }
        }
    }

    private func acknowledge(_ name: String) {
        guard let sessionId = current?.sessionId else { return }
        let session = session
        let logger = logger
        work.append {
            let method =
                await session.isAvailable(OperatorMethod.talkSessionAcknowledgeMark.rawValue)
                ? OperatorMethod.talkSessionAcknowledgeMark : .talkRealtimeRelayMark
            do {
                let params = try WireJSON(encoding: TalkSessionAcknowledgeMarkParams(sessionId: sessionId, name: name))
                _ = try await session.call(method.rawValue, params: params)
                logger.debug("realtime.mark_acknowledged", ["name": .string(name)])
            } catch {
                logger.warning("realtime.mark_failed", ["name": .string(name), "error": .string("\(error)")])
            }
        }
    }

    private func startMicrophone() {
        guard !microphoneStarted else { return }
        microphoneStarted = true
        let microphone = microphone
        let pump = RealtimeMicPump(owner: self, session: session, configuration: configuration)
        work.append { [weak self] in
            let frames: AsyncStream<RealtimeMicFrame>
            do {
                frames = try await microphone.frames()
            } catch {
                await self?.yield(.microphoneFailed("\(error)"))
                return
            }
            await pump.run(frames)
        }
    }

    /// One decoded event of the current session.
    func dispatch(_ event: RealtimeRelayEvent, created: RealtimeSessionCreated) {
        switch event {
        case .ready:
            appendedSamples = 0
            lastActivity = now
            logger.info("realtime.ready", ["sessionId": .string(created.sessionId)])
            apply(.ready(now: now))
        case .audio(let samples, let turnId):
            if machine.playingTurn != turnId { replyStartedAt = .now }
            pendingSamples = samples
            apply(.audio(turnId: turnId, count: samples.count))
            pendingSamples = []
        case .audioDone(let turnId):
            apply(.audioDone(turnId: turnId))
        case .clear:
            apply(.clear)
        case .mark(let name, let turnId):
            apply(.mark(name: name, turnId: turnId))
        case .transcript(let role, let text, let final):
            if role == .user { lastActivity = now }
            onTranscript(role, text, final)
            // `text` is redacted by the logger unless sensitive logging is on.
            logger.log(
                final ? .info : .debug, "realtime.transcript",
                ["role": .string(role.rawValue), "final": .bool(final), "text": .string(text)])
        case .toolCall(let callId, let name, _):
            logger.info("realtime.tool_call_refused", ["callId": .string(callId), "name": .string(name)])
            let session = session
            let sessionId = created.sessionId
            work.append {
                let params = try? WireJSON(
                    encoding: TalkSessionSubmitToolResultParams(
                        sessionId: sessionId, callId: callId,
                        error: "clawtalk runs no tools; the gateway owns them (brain agent-consult)"))
                _ = try? await session.call(OperatorMethod.talkSessionSubmitToolResult.rawValue, params: params)
            }
        case .inputAudio:
            break
        case .replaced:
            logger.info("realtime.replaced", ["sessionId": .string(created.sessionId)])
            apply(.replaced)
        case .error(let message):
            apply(.failure("relay error: \(message)", now: now))
        case .close(let reason):
            apply(.failure("relay closed: \(reason ?? "-")", now: now))
        }
    }

    // MARK: - Microphone pump hooks

    /// A frame that reaches the onset detector later than this after its capture read (0.3 s) is
    /// not judged: the reply it would pause or cancel has played on since. In a bench run
    /// (2026-12-07) frames 5 s late, queued behind appends the gateway did not answer, cancelled
    /// the node's own reply; the sender no longer holds them up (``RealtimeMicPump``), and this
    /// keeps any other stall from deciding on the past.
    static let staleFrameAge = 0.3

    /// A microphone frame: runs the onset detector (unless it comes too late,
    /// ``staleFrameAge``); returns the session's input rate when audio should flow (live), else
    /// nil.
    func microphoneFrame(_ frame: RealtimeMicFrame) -> Int? {
        let seconds = Double(frame.samples.count) / Double(max(frame.sampleRate, 1))
        if pushToTalk {
            lastActivity = now
            return nil
        }
        let age = frame.timestampNanoseconds.map { Double(MonotonicTime.nanoseconds() &- $0) / 1_000_000_000 }
        if let age, age > Self.staleFrameAge {
            // Too late to judge: the reply has moved on since (logged once per stall).
            if !microphoneBehind {
                microphoneBehind = true
                logger.warning("realtime.microphone_behind", ["ageMs": .int(Int(age * 1000))])
            }
        } else {
            microphoneBehind = false
            let observation = onset.frame(
                isSpeech: frame.isSpeech, seconds: seconds, rms: frame.rms, echo: frame.echoActive,
                reference: frame.reference)
            trace(isSpeech: frame.isSpeech, onsetFrame: observation.onset)
            if outputTurn != nil,
                let decision = bargeIn.frame(
                    isSpeech: frame.isSpeech, seconds: seconds, observation: observation, silence: silence(at: frame))
            {
                decisionFrameAgeMs = age.map { $0 * 1000 }
                decided(decision, onsetFrame: observation.onset)
            }
        }
        guard machine.phase == .live, let current else { return nil }
        // The idle timeout, as in native Talk: no speech from the user and no reply for that long.
        if outputTurn != nil || bargeIn.isPaused || frame.isSpeech {
            lastActivity = now
        } else if let limit = configuration.idleTimeout, now - lastActivity >= limit {
            yield(.idle)
            return nil
        }
        return current.input.sampleRateHz
    }

    /// Keeps the newest frames' evidence and logs the 0.3 s before and after an onset
    /// (`realtime.onset.frames`, debug): `s`/`-` speech (`~`: the output starved), RMS over the
    /// residual, input over the echo, highest band ratio, milliseconds since an output write, `!`
    /// strong.
    private func trace(isSpeech: Bool, onsetFrame: Bool) {
        let evidence = onset.evidence
        let ratio = evidence.residual > 0 ? evidence.frameRms / evidence.residual : 0
        let starved = (evidence.sinceWrite ?? 0) > RealtimeOnsetDetector.starvedAfter
        let entry =
            "\(isSpeech ? "s" : "-")\(onsetFrame ? "O" : "")\(starved ? "~" : ""):\(String(format: "%.1f", ratio))"
            + ":\(String(format: "%.2f", evidence.frameExcess)):\(String(format: "%.2f", evidence.frameBand))"
            + ":\(evidence.sinceWrite.map { String(Int($0 * 1000)) } ?? "-")"
            + (evidence.frameStrong ? "!" : "")
        frameTrace.append(entry)
        if frameTrace.count > 30 { frameTrace.removeFirst(frameTrace.count - 30) }
        if onsetFrame { traceSinceOnset = 0 } else if let count = traceSinceOnset { traceSinceOnset = count + 1 }
        guard traceSinceOnset == 15 else { return }
        traceSinceOnset = nil
        logger.debug(
            "realtime.onset.frames",
            [
                "turnId": .string(outputTurn ?? "-"), "frames": .string(frameTrace.joined(separator: " ")),
                "residualRms": .double(evidence.residual), "echoGain": .double(evidence.echoGain ?? 0),
            ])
    }

    /// Seconds the paused output had been silent when `frame` was captured: 0 before the pause
    /// took effect, nil when the speaker or the frame does not tell (as native Talk, talk.md §5.5).
    private func silence(at frame: RealtimeMicFrame) -> Double? {
        guard bargeIn.isPaused, let stamp = frame.timestampNanoseconds else { return nil }
        guard let since = speaker.silentSinceNanoseconds else { return 0 }
        return stamp > since ? Double(stamp - since) / 1_000_000_000 : 0
    }

    /// Performs a barge-in decision (``RealtimeBargeIn``).
    private func decided(_ decision: RealtimeBargeIn.Decision, onsetFrame: Bool) {
        if onsetFrame {
            // The double-talk test's view of the onset's speech run (issue 34: data to judge the
            // strong-evidence rule by).
            let evidence = onset.evidence
            var fields: [String: LogValue] = [
                "turnId": .string(outputTurn ?? "-"), "decision": .string(decision.rawValue),
                "runS": .double(evidence.run), "peakRms": .double(evidence.peak),
                "residualRms": .double(evidence.residual), "excess": .double(evidence.excess),
                "bandExcess": .double(evidence.bandExcess), "strongFrames": .int(evidence.strongFrames),
                "measuredFrames": .int(evidence.measuredFrames), "inputRms": .double(evidence.input),
                "farEndRms": .double(evidence.farEnd), "frameAgeMs": .double(decisionFrameAgeMs ?? -1),
            ]
            if let gain = evidence.echoGain { fields["echoGain"] = .double(gain) }
            fields["echoFrames"] = .int(evidence.echoFrames)
            logger.debug("realtime.onset", fields)
        }
        switch decision {
        case .pause:
            // Silent at once; cancelled only on more evidence or if the user goes on speaking.
            speaker.setPaused(true)
            apply(.paused(true))
            pausedAt = now
        case .cancel:
            pausedAt = nil
            // Output stops (and a pause ends); the loop then sends cancelOutput.
            receive(.onset)
            speaker.setPaused(false)
            yield(.flush)
        case .resume:
            speaker.setPaused(false)
            apply(.paused(false))
            logger.info(
                "realtime.onset_rejected",
                [
                    "turnId": .string(outputTurn ?? "-"), "reason": .string(bargeIn.reason?.rawValue ?? "-"),
                    "pausedMs": .int(pausedAt.map { Int((now - $0) * 1000) } ?? -1),
                ])
            pausedAt = nil
            // The reply plays on after silence: watched again after a short hold-off.
            if outputTurn != nil { onset.outputResumed() }
        }
    }

    /// The sender is ``RealtimeMicPump/backlogChunks`` behind and a chunk of microphone audio was
    /// dropped: logged at most every 30 s (`suppressed`: the drops between two lines).
    nonisolated func appendDropped() {
        logger.throttled(key: "realtime.append_backlog_full", every: .seconds(30)).warning(
            "realtime.append_backlog_full", ["backlogChunks": .int(RealtimeMicPump.backlogChunks)])
    }

    /// Whether chunks claimed under `generation` still belong to the live session (a replaced or
    /// closed one takes no more audio).
    func isLive(generation: Int) -> Bool {
        machine.phase == .live && current != nil && generation == self.generation
    }

    /// Claims the next `count` samples of the current session: its id, the chunk's integer
    /// millisecond timestamp and the generation (nil when not live).
    func claimAppend(count: Int) -> (sessionId: String, timestamp: Int64, generation: Int)? {
        guard machine.phase == .live, let current else { return nil }
        let rate = Int64(current.input.sampleRateHz)
        let timestamp = Int64(appendedSamples) * 1000 / rate
        appendedSamples += count
        return (current.sessionId, timestamp, generation)
    }
}
