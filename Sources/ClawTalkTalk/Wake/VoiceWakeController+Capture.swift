import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkSupport
import Foundation

extension VoiceWakeController {
    /// Performs the machine's actions in order.
    func perform(_ actions: [VoiceWakeStateMachine.Action], hit: WakeHit? = nil, verifyMilliseconds: Int = 0) async {
        for action in actions {
            switch action {
            case .startListening(let cleanBuffer):
                if cleanBuffer { restartDetector() }
                listening = true
            case .stopListening:
                listening = false
            case .verify:
                // The detector already ran the verifier; its verdict follows in the same batch.
                break
            case .playChime(let chime):
                let play = playChime
                children.spawn { await play(chime) }
            case .startCapture(let trigger, let command):
                startCapture(trigger: trigger, command: command, hit: hit, verifyMilliseconds: verifyMilliseconds)
            case .finishCapture:
                await finishCapture()
            case .cancelCapture:
                capture?.speculation?.cancel()
                if capture != nil {
                    capture = nil
                    logger.info("wake.cancelled", [:])
                    emit(.cancelled)
                }
            case .send(let trigger, let command):
                await send(trigger: trigger, command: command)
            }
        }
    }

    /// Resets the detector and the ring (deferred while the detector is busy).
    func restartDetector() {
        guard !busy else {
            restartPending = true
            return
        }
        do {
            try detector.reset()
        } catch {
            fail("wake.engine.failed", error)
        }
        ring.removeAll()
        position = 0
    }

    private func startCapture(trigger: String, command: String, hit: WakeHit?, verifyMilliseconds: Int) {
        let hit = hit ?? WakeHit(trigger: trigger, engine: "-", atSeconds: Double(position) / 16000, score: 0)
        let held = ring.snapshot()
        let heldStart = position - held.count
        // From the end of the audio the engine scored, not from when it answered: the command
        // spoken while a loaded scorer worked is in the capture.
        let hitSample = Int(hit.commandStartSeconds * 16000)
        let start = min(max(heldStart, hitSample - Int(configuration.commandPreRoll * 16000)), position)
        nextCaptureId += 1
        capture = Capture(
            id: nextCaptureId, trigger: trigger, hit: hit, verifierCommand: command,
            samples: Array(held[(start - heldStart)...]), hitOffset: max(0, min(hitSample, position) - start),
            acceptedAt: .now, verifyMilliseconds: verifyMilliseconds)
        emit(.accepted(trigger: trigger, command: command))
    }

    /// Follows the capture's pauses: at ``Configuration/speculateAfter`` of silence after command
    /// speech, its command is transcribed ahead of the capture's end; speech drops that.
    func follow(_ frame: WakeAudioFrame) {
        guard var current = capture else { return }
        let hitPassed = current.samples.count > current.hitOffset + Int(0.3 * 16000)
        if frame.isSpeech {
            current.pause = 0
            if hitPassed { current.heardCommand = true }
            current.speculation?.cancel()
            current.speculation = nil
        } else {
            current.pause += frame.seconds
        }
        if let after = configuration.speculateAfter, current.heardCommand, current.pause >= after - 1e-9 {
            if current.speculation == nil {
                current.speculation = speculate(current)
                current.lookedAgain = false
            } else if let speculation = current.speculation, !current.lookedAgain,
                current.pause >= configuration.commandPause - 1e-9
            {
                // The pause reached a Talk turn's silence window: the command transcribed at the
                // pause is final even on a verdict of incomplete, as a Talk turn's is (the
                // official apps end a wake command as fast; the verdict called 5 of 30 complete
                // commands after a wake word incomplete). Its text is the pause's transcript:
                // nothing was said since, and a turn-judging engine's text does not change with
                // the silence after it.
                current.lookedAgain = true
                let id = current.id
                children.spawn {
                    guard let command = await speculation.value, command.turnComplete != nil,
                        !command.text.isEmpty
                    else { return }
                    await self.speculationEnded(id, command: command.text)
                }
            }
        }
        capture = current
    }

    /// The command of `current` so far with an end-of-turn verdict; a complete verdict on a
    /// non-empty command ends the capture at once with it (when nothing was said since).
    private func speculate(_ current: Capture) -> Task<WakeCommand?, Never> {
        let threshold = configuration.turnCompleteThreshold
        let logger = logger
        return Task {
            guard let command = try? await self.commandText(of: current, detectTurn: true) else { return nil }
            let complete = (command.turnComplete ?? 0) >= threshold && !command.text.isEmpty
            logger.debug(
                "wake.speculation",
                ["turnComplete": .double(command.turnComplete ?? -1), "endsCapture": .bool(complete)])
            if complete { await self.speculationEnded(current.id, command: command.text) }
            return command
        }
    }

    /// A speculation of capture `id` called the command complete.
    private func speculationEnded(_ id: Int, command: String) async {
        guard let current = capture, current.id == id, current.speculation != nil, case .capturing = machine.state
        else { return }
        report(current, command: command, started: nil)
        await perform(machine.handle(.commandTranscript(command, isFinal: true)))
        if capture?.id == id { capture = nil }
    }

    private func report(_ current: Capture, command: String, started: ContinuousClock.Instant?) {
        var fields: [String: LogValue] = [
            "trigger": .string(current.trigger), "commandText": .string(command),
            "captureMs": .int(current.samples.count / 16), "engine": .string(transcriber.name),
        ]
        if let started {
            fields["sttMs"] = .int(Self.milliseconds(since: started))
        } else {
            fields["speculative"] = true
        }
        logger.info("wake.captured", fields)
        emit(.captured(trigger: current.trigger, command: command))
    }

    /// Transcribes the capture and hands the command to the machine.
    private func finishCapture() async {
        guard let current = capture else { return }
        let started = ContinuousClock.now
        let command: String
        if let speculation = current.speculation, let speculated = await speculation.value,
            speculated.turnComplete != nil
        {
            // Nothing was said after the pause it transcribed, and the engine is one that judges
            // turns (clawtalk-speech): its text does not change with the silence after it. Other
            // engines' may, so they transcribe the whole capture as before.
            guard capture?.id == current.id else { return }
            report(current, command: speculated.text, started: nil)
            await perform(machine.handle(.commandTranscript(speculated.text, isFinal: true)))
            capture = nil
            return
        }
        do {
            command = try await commandText(of: current).text
        } catch {
            guard capture?.id == current.id else { return }
            capture = nil
            fail("wake.stt.failed", error)
            await perform(machine.handle(.recognitionFailed))
            return
        }
        guard capture?.id == current.id else { return }
        report(current, command: command, started: started)
        await perform(machine.handle(.commandTranscript(command, isFinal: true)))
        capture = nil
    }

    /// The text after the trigger in the capture's transcript; the transcript of the audio after
    /// the hit when the trigger is not in it.
    private func commandText(of capture: Capture, detectTurn: Bool = false) async throws -> WakeCommand {
        let options = TranscriptionOptions(
            language: configuration.language, prompt: detector.matcher.triggers, detectTurn: detectTurn)
        let audio = PCMBuffer(format: .speech, samples: capture.samples)
        let transcript = try await transcriber.transcribe(audio, options: options)
        let recognized = RecognizedTranscript(text: transcript.text, isFinal: true, audioDuration: audio.duration)
        let trigger = detector.matcher.trigger(named: capture.trigger) ?? capture.trigger
        if let occurrence = detector.matcher.occurrences(in: recognized, only: trigger).first {
            return WakeCommand(text: occurrence.command, turnComplete: transcript.turnComplete)
        }
        guard capture.hitOffset < capture.samples.count, !transcript.text.isEmpty else {
            return WakeCommand(text: "", turnComplete: transcript.turnComplete)
        }
        let tail = PCMBuffer(format: .speech, samples: Array(capture.samples[capture.hitOffset...]))
        return WakeCommand(
            text: try await transcriber.transcribe(tail, options: options).text, turnComplete: transcript.turnComplete)
    }

    private func send(trigger: String, command: String) async {
        let timing = capture.map { capture -> [String: LogValue] in
            [
                "verifyMs": .int(capture.verifyMilliseconds),
                "acceptToSendMs": .int(Self.milliseconds(since: capture.acceptedAt)),
            ]
        }
        if let hook = commandHook, await hook(trigger, command) {
            logger.info("wake.handed_over", ["trigger": .string(trigger), "commandText": .string(command)])
            emit(.handedOver(trigger: trigger, command: command))
            return
        }
        let delivery = delivery
        let logger = logger
        // Delivery may wait for the gateway (up to its timeout); the audio loop goes on.
        children.spawn {
            let sending = ContinuousClock.now
            let receipt = await delivery.deliver(command, source: .voiceWake, trigger: trigger)
            var fields: [String: LogValue] = [
                "trigger": .string(trigger), "commandText": .string(command), "id": .string(receipt.id),
                "deliverMs": .int(Self.milliseconds(since: sending)),
            ]
            fields.merge(timing ?? [:]) { old, _ in old }
            switch receipt.outcome {
            case .sent(let route): fields["route"] = .string(route.rawValue)
            case .queuedOffline: fields["route"] = "outbox"
            case .failed(let reason): fields["error"] = .string(reason)
            }
            if case .failed = receipt.outcome {
                logger.warning("wake.sent", fields)
            } else {
                logger.info("wake.sent", fields)
            }
            await self.emit(.sent(trigger: trigger, command: command, outcome: receipt.outcome))
        }
    }
}
