import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTalk
import Dispatch
import Synchronization

/// The node's microphone (talk.md §1, architecture.md §3): the one owner a newcomer looks for.
///
/// - **The engine.** It starts the ``CaptureEngine`` (`mic.device`, the PulseAudio capture
///   thread's owner beneath it) at the first subscription, with the ``AudioFrontEnd`` when there
///   is one (as in `run`: echo of the node's own playback cancelled, its VAD deciding speech), and
///   keeps it running for the service's lifetime, so later captures begin with the pre-roll
///   (≥ 300 ms, `mic.preRollMs`). ``stop()`` closes it for good at the service's stop.
/// - **Subscriptions.** ``begin()`` (a push-to-talk or Talk turn), ``wakeFrames()`` (voice wake)
///   and ``frames()`` (realtime Talk) each subscribe to the front end (or, without one, the raw
///   capture with an ``EnergyGate``); a subscription ends when its reader stops reading.
/// - **Health.** ``watchHealth(logger:)`` turns the engine's state into `mic.*` events
///   (``MicrophoneWatch``, the pure rule of what changed).
/// - **Who listens.** ``claims`` carries out ``MicrophoneArbiter``'s rule (push-to-talk over Talk
///   mode over voice wake); Talk mode and push-to-talk claim the microphone there.
package actor Microphone: UtteranceCapturing {
    private let configuration: CaptureConfiguration
    /// The running engine, and whether ``stop()`` closed the microphone for good.
    private let engine = Mutex<(current: CaptureEngine?, closed: Bool)>((nil, false))
    private let logger: Logger
    let frontEnd: AudioFrontEnd?
    let levels: VoiceStatusTap?
    /// The wake subscriptions' frame pumps: children of the microphone, not loose tasks.
    private nonisolated let pumps = OwnedTaskGroup()
    /// Who listens: Talk mode and push-to-talk claim the microphone here.
    nonisolated let claims: MicrophoneClaims
    /// What the health log said last (``watchHealth(logger:)``).
    private var health = MicrophoneWatch()

    /// Captures from `mic`'s source, through `frontEnd` when given; each frame's level goes to
    /// `levels` (the status level meter) when given; `claims` decides who listens (default: its
    /// own, for a service used alone).
    init(
        mic: MicSettings, frontEnd: AudioFrontEnd? = nil, levels: VoiceStatusTap? = nil,
        claims: MicrophoneClaims? = nil, logger: Logger
    ) {
        self.frontEnd = frontEnd
        self.levels = levels
        self.claims = claims ?? MicrophoneClaims(logger: logger)
        configuration = CaptureConfiguration(
            source: mic.device, frameMilliseconds: mic.frameMs, preRollMilliseconds: max(mic.preRollMs, 300))
        self.logger = logger.child(category: "ptt.capture")
    }

    /// Starts the engine if needed (off the caller's task) and begins a capture with the pre-roll.
    /// Throws `TalkError.microphoneUnavailable` when no source can be opened.
    nonisolated func begin() async throws -> any UtteranceCapture {
        let engine = try await runningEngine()
        let levels = self.levels
        if let frontEnd {
            let frames = Self.forward(frontEnd.frames(), state: ()) { _, frame in
                levels?.record(rms: frame.rms)
                return .init(
                    samples: frame.clean, isSpeech: frame.isSpeech, rms: frame.rms,
                    timestampNanoseconds: frame.timestampNanoseconds, echoActive: frame.echoActive,
                    reference: EchoReference(frame))
            }
            return LiveUtteranceCapture(preRoll: frontEnd.preRoll(), frames: frames)
        }
        let frames = Self.forward(engine.frames(), state: EnergyGate()) { gate, frame in
            let decision = gate.process(frame.samples)
            levels?.record(rms: decision.rms)
            return .init(
                samples: frame.samples, isSpeech: decision.isSpeech, rms: decision.rms,
                timestampNanoseconds: frame.timestampNanoseconds)
        }
        return LiveUtteranceCapture(preRoll: engine.preRoll(), frames: frames)
    }

    /// One capture's frames from `source` (a subscription to the front end or the engine), each
    /// made by `step` as the capture's pump reads it. No task of its own: when the pump is
    /// cancelled (the capture finished or cancelled), its read ends `source`, and with it the
    /// subscription, so nothing outlives the capture.
    static func forward<Source: Sendable, State: Sendable>(
        _ source: AsyncStream<Source>, state: State,
        _ step: @escaping @Sendable (inout State, Source) -> LiveUtteranceCapture.Frame
    ) -> AsyncMapSequence<AsyncStream<Source>, LiveUtteranceCapture.Frame> {
        let state = Mutex(state)
        return source.map { element in state.locked { step(&$0, element) } }
    }

    /// Starts the engine if needed and streams every frame from now on for voice wake: through the
    /// front end the AEC signal for the wake engine, the clean one for speech-to-text, its voice
    /// activity, and `muted` while the node's own playback may be heard without echo control
    /// (talk.md §6.5); without a front end the raw capture with an ``EnergyGate``. Buffers
    /// 20 s, so a slow verifier or transcription delays wake without losing audio.
    nonisolated func wakeFrames() async throws -> AsyncStream<WakeAudioFrame> {
        let (frames, continuation) = AsyncStream.makeStream(
            of: WakeAudioFrame.self, bufferingPolicy: .bufferingNewest(1000))
        if let frontEnd {
            let source = frontEnd.frames()
            _ = try await runningEngine()
            let echoControlled = frontEnd.echoControlled
            let levels = self.levels
            pumps.spawn {
                for await frame in source {
                    levels?.record(rms: frame.rms)
                    continuation.yield(
                        WakeAudioFrame(
                            wake: frame.aec, speech: frame.clean, isSpeech: frame.isSpeech,
                            muted: frame.echoActive && !echoControlled, echoActive: frame.echoActive))
                }
                continuation.finish()
            }
            return frames
        }
        let engine = try await runningEngine()
        let source = engine.frames()
        let levels = self.levels
        pumps.spawn {
            var gate = EnergyGate()
            for await frame in source {
                let decision = gate.process(frame.samples)
                levels?.record(rms: decision.rms)
                continuation.yield(WakeAudioFrame(wake: frame.samples, isSpeech: decision.isSpeech))
            }
            continuation.finish()
        }
        return frames
    }

    /// The engine's counters and state (nil until the first capture or wake opened it).
    nonisolated var captureStats: CaptureStats? {
        engine.locked { $0.current }?.stats
    }

    /// Stops the engine for good (service shutdown): a start still waiting for the sound server
    /// gives up, and later captures and wake frames throw `CancellationError` (the microphone
    /// is not unavailable, the service is stopping) instead of opening a new engine.
    nonisolated func stop() {
        engine.locked { state in
            state.current?.stop()
            state.current = nil
            state.closed = true
        }
    }

    /// The engine, started if needed. Throws `TalkError.microphoneUnavailable` when no source
    /// can be opened, and `CancellationError` once ``stop()`` closed the microphone (also for
    /// a start it interrupted).
    nonisolated func runningEngine() async throws -> CaptureEngine {
        let opened = self.engine.locked { state -> CaptureEngine? in
            guard !state.closed else { return nil }
            if let current = state.current { return current }
            let created = CaptureEngine(configuration: configuration, backend: PulseCaptureBackend(pacedReads: true))
            state.current = created
            return created
        }
        guard let engine = opened else { throw CancellationError() }
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                DispatchQueue.global().async {
                    do {
                        try engine.start()
                        // Idempotent: a running front end ignores a second start.
                        try self.frontEnd?.start(on: engine)
                        continuation.resume()
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } catch {
            let closed = self.engine.locked { state in
                if state.current === engine { state.current = nil }
                return state.closed
            }
            if closed {
                // Not a microphone fault: the stop ended the open (a sound server that had not
                // answered yet, say), noted at info for whoever reads a slow stop.
                logger.info("mic.open.stopped", ["error": .string("\(error)")])
                throw CancellationError()
            }
            logger.warning("ptt.capture.unavailable", ["error": .string("\(error)")])
            throw TalkError.microphoneUnavailable("\(error)")
        }
        return engine
    }

    /// How often ``watchHealth(logger:)`` looks at the engine (its state is a lock-protected value).
    static let watchInterval: Duration = .seconds(1)

    /// Logs the microphone's state changes (``MicrophoneWatch``) until cancelled.
    func watchHealth(logger: Logger) async {
        let logger = logger.child(category: "mic")
        while !Task.isCancelled {
            if let stats = captureStats {
                for event in health.observe(stats, at: Double(MonotonicTime.nanoseconds()) / 1e9) {
                    logger.log(event.level, event.name, event.fields)
                }
            }
            try? await Task.sleep(for: Self.watchInterval)
        }
    }
}
