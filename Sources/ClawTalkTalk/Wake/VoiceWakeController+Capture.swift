import ClawTalkAudio
import ClawTalkSpeech
import ClawTalkSupport

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
                Task { await play(chime) }
            case .startCapture(let trigger, let command):
                startCapture(trigger: trigger, command: command, hit: hit, verifyMilliseconds: verifyMilliseconds)
            case .finishCapture:
                await finishCapture()
            case .cancelCapture:
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
        let hitSample = Int(hit.atSeconds * 16000)
        let start = min(max(heldStart, hitSample - Int(configuration.commandPreRoll * 16000)), position)
        nextCaptureId += 1
        capture = Capture(
            id: nextCaptureId, trigger: trigger, hit: hit, verifierCommand: command,
            samples: Array(held[(start - heldStart)...]), hitOffset: max(0, min(hitSample, position) - start),
            acceptedAt: .now, verifyMilliseconds: verifyMilliseconds)
        emit(.accepted(trigger: trigger, command: command))
    }

    /// Transcribes the capture and hands the command to the machine.
    private func finishCapture() async {
        guard let current = capture else { return }
        let captureSeconds = Double(current.samples.count) / 16000
        let started = ContinuousClock.now
        let command: String
        do {
            command = try await commandText(of: current)
        } catch {
            guard capture?.id == current.id else { return }
            capture = nil
            fail("wake.stt.failed", error)
            await perform(machine.handle(.recognitionFailed))
            return
        }
        guard capture?.id == current.id else { return }
        let sttMilliseconds = Self.milliseconds(since: started)
        logger.info(
            "wake.captured",
            [
                "trigger": .string(current.trigger), "commandText": .string(command),
                "captureMs": .int(Int(captureSeconds * 1000)), "sttMs": .int(sttMilliseconds),
                "engine": .string(transcriber.name),
            ])
        emit(.captured(trigger: current.trigger, command: command))
        await perform(machine.handle(.commandTranscript(command, isFinal: true)))
        capture = nil
    }

    /// The text after the trigger in the capture's transcript; the transcript of the audio after
    /// the hit when the trigger is not in it.
    private func commandText(of capture: Capture) async throws -> String {
        let options = TranscriptionOptions(language: configuration.language, prompt: detector.matcher.triggers)
        let audio = PCMBuffer(format: .speech, samples: capture.samples)
        let transcript = try await transcriber.transcribe(audio, options: options)
        let recognized = RecognizedTranscript(text: transcript.text, isFinal: true, audioDuration: audio.duration)
        let trigger = detector.matcher.trigger(named: capture.trigger) ?? capture.trigger
        if let occurrence = detector.matcher.occurrences(in: recognized, only: trigger).first {
            return occurrence.command
        }
        guard capture.hitOffset < capture.samples.count, !transcript.text.isEmpty else { return "" }
        let tail = PCMBuffer(format: .speech, samples: Array(capture.samples[capture.hitOffset...]))
        return try await transcriber.transcribe(tail, options: options).text
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
        Task {
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
