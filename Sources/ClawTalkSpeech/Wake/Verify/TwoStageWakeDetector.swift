import ClawTalkAudio

/// The wake pipeline the node runs on its capture stream, in file mode and live alike:
/// audio → energy gate + ring buffer → stage-1 ``WakeEngine`` → (optional) ``TranscriptVerifier``
/// on the audio around each hit → ``TriggerMatcher`` gate → ``WakeVerdict``.
///
/// - A hit is verified once ``Options/postRoll`` seconds of audio after it have arrived (or at
///   ``finish()``): the clip runs from ``Options/preRoll`` before the hit to that point. Without
///   a verifier every hit is accepted at once (stage-1-only mode).
/// - The energy gate (talk.md §5.4) guards the verifier: a clip without a single speech
///   frame is rejected unheard, so Whisper never gets the noise on which it echoes its prompt.
/// - A transcript equal to the prompt is rejected as an echo when the prompt names two or more
///   triggers (with one trigger, the echo cannot be told from the real thing).
/// - Hits of the same trigger within ``Options/refractoryPeriod`` of the previous one are dropped.
/// - While the node's own playback is in the audio (``process(_:echo:)``), a hit that carries a
///   threshold (the keyword scorer's) must score ``Options/echoScoreFactor`` times it: what is
///   left of the node's own voice after echo cancellation is speech-like, and a weak score on it
///   is how the node would wake itself (`wake.self_trigger`).
///
/// Not thread-safe: one detector per stream and task. The async methods run on the caller's
/// executor (`nonisolated(nonsending)`), so an actor can own the detector.
public final class TwoStageWakeDetector {
    /// Timings.
    public struct Options: Sendable, Hashable {
        /// Audio before a hit given to the verifier, seconds (1.5).
        public var preRoll: Double
        /// Audio after a hit to wait for before verifying, seconds (1.0: enough for the 0.55 s
        /// trigger-only pause and the first command word after a 0.45 s gap).
        public var postRoll: Double
        /// Hits of one trigger closer than this are one hit, seconds (2.0).
        public var refractoryPeriod: Double
        /// Reject hits without a speech frame before verifying (true).
        public var requireSpeech: Bool
        /// Engines whose hits are accepted without the verifier: the Whisper keyword scorer
        /// already heard the trigger in Whisper's own words (0 false accepts on the development
        /// negatives for the three default triggers; the verifier would only add its second of
        /// post-roll and a Whisper base request).
        public var unverifiedEngines: Set<String>
        /// A hit with a threshold (``WakeHit/threshold``) heard within ``echoWindow`` of the
        /// node's own playback must score this many times its threshold (10).
        public var echoScoreFactor: Double
        /// Seconds before a hit's decision in which own playback makes it a hit over echo (1.0:
        /// the scorer decides some 0.5 s after the trigger's last sound, so this covers the
        /// trigger's end, not speech that starts once the reply is over).
        public var echoWindow: Double

        /// Defaults as documented.
        public init(
            preRoll: Double = 1.5, postRoll: Double = 1.0, refractoryPeriod: Double = 2, requireSpeech: Bool = true,
            unverifiedEngines: Set<String> = [WhisperKeywordEngine.engineName], echoScoreFactor: Double = 10,
            echoWindow: Double = 1.0
        ) {
            self.preRoll = preRoll
            self.postRoll = postRoll
            self.refractoryPeriod = refractoryPeriod
            self.requireSpeech = requireSpeech
            self.unverifiedEngines = unverifiedEngines
            self.echoScoreFactor = echoScoreFactor
            self.echoWindow = echoWindow
        }
    }

    /// The stage-1 engine.
    public let engine: any WakeEngine
    /// The verifier, nil for stage-1-only mode.
    public let verifier: TranscriptVerifier?
    /// The gate (its trigger list follows ``setTriggers(_:)``).
    public private(set) var matcher: TriggerMatcher
    /// Timings in use.
    public let options: Options

    private static let sampleRate = AudioFormat.speech.sampleRate
    private static let frameSize = AudioFormat.speech.sampleCount(milliseconds: 20)

    private var ring: PreRollBuffer
    private var gate = EnergyGate()
    private var chunker = FrameChunker(frameSize: TwoStageWakeDetector.frameSize)
    /// Speech verdicts of the frames the ring holds, oldest first (frame i covers samples
    /// `i × frameSize ..< (i + 1) × frameSize` of the stream, counted from `firstFrame`).
    private var speechFrames: [Bool] = []
    private var firstFrame = 0
    /// Samples received since the start or ``reset()``.
    private var position = 0
    private var pending: [(hit: WakeHit, due: Int)] = []
    private var lastHit: [String: Double] = [:]
    /// Stream position (samples) at the end of the last chunk that held own playback.
    private var lastEchoEnd: Int?

    /// A detector over `engine` (whose triggers it gates); `verifier` nil means stage 1 only.
    public init(
        engine: any WakeEngine, verifier: TranscriptVerifier?, options: Options = Options(),
        confusions: TriggerConfusions = .standard, gate: TriggerMatcher.Configuration = .init()
    ) {
        self.engine = engine
        self.verifier = verifier
        self.options = options
        matcher = TriggerMatcher(triggers: engine.triggers, confusions: confusions, configuration: gate)
        let seconds = options.preRoll + options.postRoll + 1
        ring = PreRollBuffer(milliseconds: Int(seconds * 1000), format: .speech)
    }

    /// The prompt given to the verifier: the triggers, comma-separated, ending with a full stop.
    public var prompt: String {
        matcher.triggers.joined(separator: ", ") + "."
    }

    /// Applies a new trigger list to the engine and the gate, live.
    public func setTriggers(_ triggers: [String]) throws {
        try engine.setTriggers(triggers)
        matcher.setTriggers(triggers)
        pending.removeAll { hit in matcher.trigger(named: hit.hit.trigger) == nil }
    }

    /// Feeds 16 kHz mono samples, `echo` when the node's own playback may be in them; returns the
    /// verdicts that became due, in order.
    nonisolated(nonsending) public func process(_ samples: [Int16], echo: Bool = false) async throws -> [WakeVerdict] {
        samples.withUnsafeBufferPointer { buffer in
            ring.append(buffer)
            chunker.append(buffer) { frame in speechFrames.append(gate.process(frame).isSpeech) }
        }
        position += samples.count
        if echo { lastEchoEnd = position }
        let framesKept = ring.capacity / Self.frameSize + 1
        if speechFrames.count > framesKept {
            let drop = speechFrames.count - framesKept
            speechFrames.removeFirst(drop)
            firstFrame += drop
        }
        var verdicts = admit(try engine.process(samples))
        while let next = pending.first, next.due <= position {
            pending.removeFirst()
            verdicts.append(await verify(next.hit, until: next.due))
        }
        return verdicts
    }

    /// Ends the stream: collects the engine's last hits and verifies everything pending with the
    /// audio there is.
    nonisolated(nonsending) public func finish() async throws -> [WakeVerdict] {
        var verdicts = admit(try engine.finish())
        let due = pending
        pending.removeAll()
        for next in due {
            verdicts.append(await verify(next.hit, until: min(next.due, position)))
        }
        return verdicts
    }

    /// Starts over: engine, buffers, gate and time base.
    public func reset() throws {
        try engine.reset()
        ring.removeAll()
        gate.reset()
        chunker.reset()
        speechFrames.removeAll()
        firstFrame = 0
        position = 0
        pending.removeAll()
        lastHit.removeAll()
        lastEchoEnd = nil
    }

    // MARK: - Private

    /// Applies the refractory period; accepts at once without a verifier, else queues.
    private func admit(_ hits: [WakeHit]) -> [WakeVerdict] {
        var verdicts: [WakeVerdict] = []
        for hit in hits {
            if isWeakOverEcho(hit) {
                verdicts.append(WakeVerdict(hit: hit, rejection: .weakOverEcho, decidedAtSeconds: hit.atSeconds))
                continue
            }
            let key = TriggerText.key(hit.trigger)
            if let last = lastHit[key], hit.atSeconds - last < options.refractoryPeriod { continue }
            lastHit[key] = hit.atSeconds
            guard verifier != nil, !options.unverifiedEngines.contains(hit.engine) else {
                verdicts.append(WakeVerdict(hit: hit, decidedAtSeconds: hit.atSeconds))
                continue
            }
            let due = Int((hit.atSeconds + options.postRoll) * Double(Self.sampleRate))
            pending.append((hit, due))
        }
        return verdicts
    }

    nonisolated(nonsending) private func verify(_ hit: WakeHit, until end: Int) async -> WakeVerdict {
        let decidedAt = Double(end) / Double(Self.sampleRate)
        var verdict = WakeVerdict(hit: hit, decidedAtSeconds: decidedAt)
        guard let verifier else { return verdict }
        let held = ring.count
        let heldStart = position - held
        let start = max(heldStart, Int((hit.atSeconds - options.preRoll) * Double(Self.sampleRate)), 0)
        let end = max(start, min(end, position))
        if options.requireSpeech, !containsSpeech(start..<end) {
            verdict.rejection = .noSpeech
            return verdict
        }
        let snapshot = ring.snapshot()
        let clip = PCMBuffer(format: .speech, samples: Array(snapshot[(start - heldStart)..<(end - heldStart)]))
        let transcript: RecognizedTranscript
        do {
            transcript = try await verifier.transcribe(clip, prompt)
        } catch {
            verdict.rejection = .verifierFailed(String(describing: error))
            return verdict
        }
        verdict.transcript = transcript.text
        if matcher.triggers.count > 1, TriggerText.normalize(transcript.text) == TriggerText.normalize(prompt) {
            verdict.rejection = .promptEcho
            return verdict
        }
        var final = transcript
        final.isFinal = true
        if final.audioDuration == nil { final.audioDuration = clip.duration }
        let decision = matcher.evaluate(final, only: matcher.trigger(named: hit.trigger) ?? hit.trigger)
        verdict.decision = decision
        switch decision {
        case .accepted: break
        case .pauseTooShort: verdict.rejection = .pauseTooShort
        case .pending, .noTrigger: verdict.rejection = .triggerNotHeard
        }
        return verdict
    }

    /// Whether `hit` came with own playback in its last ``Options/echoWindow`` and scored below
    /// ``Options/echoScoreFactor`` times its threshold.
    private func isWeakOverEcho(_ hit: WakeHit) -> Bool {
        guard let threshold = hit.threshold, let lastEchoEnd else { return false }
        let windowStart = Int((hit.atSeconds - options.echoWindow) * Double(Self.sampleRate))
        return lastEchoEnd > windowStart && hit.score < threshold * options.echoScoreFactor
    }

    /// Whether any 20 ms frame overlapping `range` (stream samples) was speech.
    private func containsSpeech(_ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        let first = max(range.lowerBound / Self.frameSize - firstFrame, 0)
        let last = min((range.upperBound - 1) / Self.frameSize - firstFrame, speechFrames.count - 1)
        guard first <= last else { return false }
        return speechFrames[first...last].contains(true)
    }
}
