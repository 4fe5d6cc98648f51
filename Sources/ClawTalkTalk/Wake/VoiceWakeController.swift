import ClawTalkAudio
public import ClawTalkSpeech
public import ClawTalkSupport

/// Voice wake on the live capture stream (talk.md §6): wake → trigger chime → command
/// capture → verified transcript → send chime and delivery; the reply is then spoken by the
/// reply pipeline like any other transcript's.
///
/// Owns one ``TwoStageWakeDetector`` (stage 1, verifier, trigger gate) and one
/// ``VoiceWakeStateMachine`` (capture, silence rules, cooldown, suspend leases) and drives them
/// with ``WakeAudioFrame``s:
/// - While listening every frame goes to the detector. An accepted verdict plays the trigger
///   chime and starts the command capture with the audio from ``Configuration/commandPreRoll``
///   before the hit (so the verifier's already-heard command and the trigger itself are in it).
/// - Every frame advances the machine's clock (`.audio` with the frame's duration and speech
///   decision: time is the audio's, never the wall clock's) until it ends the capture: 2.0 s of
///   silence after command speech, 5.0 s after the trigger only, 120 s at most.
/// - The capture is transcribed with the configured ``Transcriber`` (triggers as prompt); the
///   command is the text after the trigger (``TriggerMatcher``). When the transcript lacks the
///   trigger, the audio after the hit is transcribed instead; when that is empty too, the
///   verifier's command is used. A non-empty command plays the send chime and goes to
///   ``TranscriptDelivering`` as `.voiceWake` with the trigger, or to ``setCommandHook(_:)``'s
///   hook when it takes it (`wake.startsTalk`).
/// - Chimes (talk.md §6.5): with echo cancellation the capture runs on through the chime (its echo is
///   cancelled); frames flagged ``WakeAudioFrame/muted`` (own playback without echo control) are
///   replaced by silence before speech-to-text.
/// - ``suspend()``/``resume()`` are leases (push-to-talk, Talk mode): a capture in progress is
///   dropped, listening resumes with a clean buffer when the last lease is returned.
///
/// The detector is not thread-safe; this actor is its only user. Trigger lists that arrive while
/// the detector is busy (awaiting its verifier) are applied right after.
public actor VoiceWakeController: WakeListening {
    /// Plays a chime; returns when it was handed to playback (may return before it ends).
    public typealias ChimePlayer = @Sendable (VoiceWakeStateMachine.Chime) async -> Void
    /// Takes a wake command instead of delivery (Talk mode's first turn); returns whether it did.
    public typealias CommandHook = @Sendable (_ trigger: String, _ command: String) async -> Bool

    /// Settings of the controller.
    public struct Configuration: Sendable, Hashable {
        /// talk.md §6.4 timings.
        public var timing: VoiceWakeStateMachine.Timing
        /// Language for speech-to-text (BCP-47), nil for the engine's default.
        public var language: String?
        /// Audio before the stage-1 hit that the command capture starts with, seconds (1.5, the
        /// verifier's pre-roll: the trigger is in it, so the transcript can be split at it).
        public var commandPreRoll: Double
        /// Silence after command speech at which the command is transcribed ahead of the
        /// capture's end, with an end-of-turn verdict (0.2 s; nil: never). A verdict of
        /// complete on a non-empty command is the final result that ends the capture (talk.md
        /// §6.4), without waiting for the 2.0 s silence; otherwise its transcript is used when
        /// the capture ends with no speech after it.
        public var speculateAfter: Double? = 0.2
        /// The end-of-turn probability at which a speculation ends the capture (0.5).
        public var turnCompleteThreshold = 0.5
        /// Silence after which the pause's transcript ends the capture when it holds a command,
        /// whatever the verdict (0.7 s, a Talk turn's silence window); the 2.0 s of talk.md §6.4
        /// remain for an engine that gives no verdict, and for a pause with no command words.
        public var commandPause = 0.7

        /// The contract's values.
        public init(
            timing: VoiceWakeStateMachine.Timing = .init(), language: String? = nil, commandPreRoll: Double = 1.5
        ) {
            self.timing = timing
            self.language = language
            self.commandPreRoll = commandPreRoll
        }
    }

    /// The command being captured.
    struct Capture {
        let id: Int
        let trigger: String
        let hit: WakeHit
        /// What the verifier heard after the trigger.
        let verifierCommand: String
        /// Samples from `commandPreRoll` before the hit; `hitOffset` is the hit's index in them.
        var samples: [Int16]
        let hitOffset: Int
        let acceptedAt: ContinuousClock.Instant
        let verifyMilliseconds: Int
        /// Seconds of silence since the last speech frame of the capture.
        var pause = 0.0
        /// Command speech was heard in the capture (a speech frame after the hit).
        var heardCommand = false
        /// The command transcribed at the current pause (nil: none, or speech went on since).
        var speculation: Task<WakeCommand?, Never>?
        /// The current pause's transcript was looked at again (``Configuration/commandPause``).
        var lookedAgain = false
    }

    /// A command transcript with the engine's end-of-turn verdict (nil: not asked or not known).
    struct WakeCommand: Sendable {
        var text: String
        var turnComplete: Double?
    }

    let detector: TwoStageWakeDetector
    var machine: VoiceWakeStateMachine
    let transcriber: any Transcriber
    let delivery: any TranscriptDelivering
    let playChime: ChimePlayer
    /// Chimes, command deliveries and speculation follow-ups: children of the controller, not
    /// loose tasks (the audio loop goes on meanwhile).
    let children = OwnedTaskGroup()
    let configuration: Configuration
    let logger: Logger
    var commandHook: CommandHook?
    /// STT input of the recent audio, in the detector's time base.
    var ring: PreRollBuffer
    /// Samples since the detector's last reset.
    var position = 0
    var listening = false
    var busy = false
    var pendingTriggers: [String]?
    /// A clean restart asked for while the detector was busy (applied right after).
    var restartPending = false
    var capture: Capture?
    var nextCaptureId = 0
    /// ``events()``: the newest 64 unread events per reader.
    let broadcast = EventBroadcast<VoiceWakeEvent>(bufferingNewest: 64)
    /// Audio statistics since the last `wake.audio` debug line (every 10 s of audio).
    var meter = (frames: 0, speech: 0, samples: 0, peakRMS: 0.0)

    /// A stopped controller (``setEnabled(_:)`` starts it) over `detector`.
    public init(
        detector: sending TwoStageWakeDetector, transcriber: any Transcriber, delivery: any TranscriptDelivering,
        configuration: Configuration = Configuration(), logger: Logger = .discarding,
        playChime: @escaping ChimePlayer = { _ in }
    ) {
        self.detector = detector
        machine = VoiceWakeStateMachine(timing: configuration.timing, verifiesHits: detector.verifier != nil)
        self.transcriber = transcriber
        self.delivery = delivery
        self.configuration = configuration
        self.logger = logger.child(category: "wake")
        self.playChime = playChime
        let seconds = configuration.commandPreRoll + detector.options.postRoll + 2
        ring = PreRollBuffer(milliseconds: Int(seconds * 1000), format: .speech)
    }

    // MARK: - Control

    /// Turns wake on or off (`wake.enabled`; off drops a capture in progress).
    public func setEnabled(_ enabled: Bool) async {
        await perform(machine.handle(enabled ? .enable : .disable))
    }

    /// Takes the microphone from wake (push-to-talk, Talk mode); leases nest.
    public func suspend() async {
        await perform(machine.handle(.suspend))
    }

    /// Returns a ``suspend()`` lease; the last one restarts listening with a clean buffer.
    public func resume() async {
        await perform(machine.handle(.resume))
    }

    /// Sets the hook that may take wake commands instead of delivery (nil: always deliver).
    public func setCommandHook(_ hook: CommandHook?) {
        commandHook = hook
    }

    /// Applies a new trigger list live (Gateway `voicewake.changed`), without restarting audio.
    public func setTriggers(_ triggers: [String]) {
        guard !busy else {
            pendingTriggers = triggers
            return
        }
        apply(triggers)
    }

    /// The triggers in use.
    public var triggers: [String] { detector.matcher.triggers }

    /// The machine's state.
    public var state: VoiceWakeStateMachine.State { machine.state }

    /// A stream of what happens from now on; it ends when the caller stops reading.
    public func events() -> AsyncStream<VoiceWakeEvent> {
        broadcast.subscribe()
    }

    // MARK: - Audio

    /// Consumes `frames` until the stream ends or the task is cancelled.
    public func run(_ frames: AsyncStream<WakeAudioFrame>) async {
        for await frame in frames {
            if Task.isCancelled { break }
            await process(frame)
        }
    }

    /// Processes one frame (detector, capture, machine clock).
    public func process(_ frame: WakeAudioFrame) async {
        let speech = frame.muted ? [Int16](repeating: 0, count: frame.speech.count) : frame.speech
        measure(frame)
        speech.withUnsafeBufferPointer { ring.append($0) }
        position += speech.count
        if capture != nil, case .capturing = machine.state {
            capture?.samples += speech
            follow(frame)
        }
        if listening {
            busy = true
            let started = ContinuousClock.now
            var verdicts: [WakeVerdict]
            do {
                verdicts = try await detector.process(frame.wake, echo: frame.echoActive)
            } catch {
                verdicts = []
                fail("wake.engine.failed", error)
            }
            busy = false
            if let triggers = pendingTriggers {
                pendingTriggers = nil
                apply(triggers)
            }
            if restartPending {
                // Suspended and resumed while the verifier ran: those verdicts are about audio
                // from before the restart.
                restartPending = false
                restartDetector()
                verdicts = []
            }
            let wall = Self.milliseconds(since: started)
            for verdict in verdicts { await handle(verdict, verifyMilliseconds: wall) }
        }
        await perform(machine.handle(.audio(.seconds(frame.seconds), isSpeech: frame.isSpeech)))
    }

    // MARK: - Private

    private func measure(_ frame: WakeAudioFrame) {
        meter.frames += 1
        meter.samples += frame.wake.count
        if frame.isSpeech { meter.speech += 1 }
        meter.peakRMS = max(meter.peakRMS, frame.wake.withUnsafeBufferPointer { EnergyGate.rms($0) })
        guard meter.samples >= 160_000 else { return }
        logger.debug(
            "wake.audio",
            [
                "frames": .int(meter.frames), "speechFrames": .int(meter.speech),
                "peakRms": .double((meter.peakRMS * 10000).rounded() / 10000), "listening": .bool(listening),
                "state": .string("\(machine.state)"),
            ])
        meter = (0, 0, 0, 0)
    }

    func emit(_ event: VoiceWakeEvent) {
        broadcast.publish(event)
    }

    func fail(_ name: String, _ error: any Error) {
        logger.error(name, ["error": .string("\(error)")])
        emit(.failed("\(name): \(error)"))
    }

    private func apply(_ triggers: [String]) {
        do {
            try detector.setTriggers(triggers)
            logger.info(
                "wake.triggers", ["count": .int(triggers.count), "triggers": .string(triggers.joined(separator: ","))])
            emit(.triggersChanged(triggers))
        } catch {
            fail("wake.triggers.failed", error)
        }
    }

    /// Feeds one verdict to the machine (hit, then the verifier's answer); `verifyMilliseconds`
    /// is the wall time the detector took (the verifier's run).
    private func handle(_ verdict: WakeVerdict, verifyMilliseconds: Int) async {
        let hit = verdict.hit
        let latency = Int(((verdict.decidedAtSeconds - hit.atSeconds) * 1000).rounded())
        logger.info(
            "wake.hit",
            [
                "trigger": .string(hit.trigger), "engine": .string(hit.engine), "score": .double(hit.score),
                "atSeconds": .double(hit.atSeconds),
            ])
        emit(.hit(hit, accepted: verdict.isAccepted))
        // A hit refused over echo never reaches the machine (it would take an unverified hit as a wake).
        var actions: [VoiceWakeStateMachine.Action] = []
        if verdict.rejection != .weakOverEcho {
            actions = machine.handle(.stageOneHit(hit))
            let verifying = actions.contains(.verify(hit))
            if verifying {
                if verdict.isAccepted, let occurrence = verdict.decision?.occurrence {
                    actions += machine.handle(.verified(occurrence))
                } else if verdict.isAccepted, verdict.decision == nil {
                    // An engine trusted without the verifier (the Whisper keyword scorer): the trigger
                    // was heard, the command is still to come (the capture transcribes it).
                    actions += machine.handle(.verified(Self.unverifiedOccurrence(of: hit)))
                } else if case .verifierFailed = verdict.rejection {
                    actions += machine.handle(.recognitionFailed)
                } else {
                    actions += machine.handle(.verificationRejected)
                }
            }
        }
        let accepted = actions.contains { if case .startCapture = $0 { true } else { false } }
        if accepted {
            logger.info(
                "wake.accepted",
                [
                    "trigger": .string(hit.trigger), "engine": .string(hit.engine), "score": .double(hit.score),
                    "latencyMs": .int(latency), "verifyMs": .int(verifyMilliseconds),
                    "transcript": .string(verdict.transcript ?? ""),
                ])
        } else {
            let reason = verdict.rejection.map(Self.describe) ?? (actions.isEmpty ? "cooldown" : "ignored")
            logger.info(
                "wake.rejected",
                [
                    "trigger": .string(hit.trigger), "reason": .string(reason), "score": .double(hit.score),
                    "latencyMs": .int(latency), "transcript": .string(verdict.transcript ?? ""),
                ])
            emit(.rejected(trigger: hit.trigger, reason: reason))
        }
        await perform(actions, hit: hit, verifyMilliseconds: verifyMilliseconds)
    }

    /// The trigger alone, as an engine trusted without the verifier heard it.
    static func unverifiedOccurrence(of hit: WakeHit) -> TriggerOccurrence {
        TriggerOccurrence(
            trigger: hit.trigger, heard: TriggerText.normalize(hit.trigger), viaAlternative: false, wordRange: 0...0,
            triggerStart: nil, triggerEnd: nil, command: "", commandStart: nil)
    }

    static func describe(_ rejection: WakeVerdict.Rejection) -> String {
        switch rejection {
        case .noSpeech: "no-speech"
        case .promptEcho: "prompt-echo"
        case .triggerNotHeard: "trigger-not-heard"
        case .pauseTooShort: "pause-too-short"
        case .weakOverEcho: "weak-over-echo"
        case .verifierFailed(let error): "verifier-failed: \(error)"
        }
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
