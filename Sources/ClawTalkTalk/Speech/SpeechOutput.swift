import ClawTalkAudio
public import ClawTalkGateway
public import ClawTalkProtocol
public import ClawTalkSupport

/// Speaks replies and `clawtalk say` text (talk.md §7): each request goes down the
/// fallback chain of talk.md §7.5 — `talk.speak` (full mode) → `tts.speak` → espeak-ng — and the audio
/// is played through the ``AudioOutput`` seam. Node-only mode speaks with espeak-ng directly.
///
/// One speech session at a time: a new ``speak(segments:directive:purpose:)`` stops the
/// current one. Within a session, synthesis of the next request overlaps playback of the
/// current one (at most ``Configuration/prefetchLead`` of audio queued ahead), and consecutive
/// clips of one format play as one gapless stream. ``stopSpeaking(recordInterruption:)`` stops
/// playback and pending synthesis and reports the seconds heard.
///
/// Directives (talk.md §5.6): the values of a reply's directive apply to that reply; unless it says
/// `once`, they also become the Talk session default until ``resetTalkSession()``.
public actor SpeechOutput: SpeechStopping {
    let audio: any AudioOutput
    let local: (any LocalSynthesizer)?
    let configuration: Configuration
    let logger: Logger
    let errorEarcon: @Sendable () async -> Void
    let decodeLane = SerialLane(label: "clawtalk.clip-decoder")

    var operatorSession: OperatorSession?
    var voiceAliases: [String: String] = [:]
    var pcmUnavailable = false
    var sessionDirective: TalkDirective?
    var interruptionHandler: (@Sendable (Double) async -> Void)?
    private var current: Session?
    private var stoppedSessions: Set<Int> = []
    private var nextSessionId = 0

    /// One running speech session.
    private struct Session {
        let id: Int
        let gate: PrefetchGate
        let producer: Task<SynthesisReport, Never>
        let player: Task<PlaybackReport, Never>
    }

    /// A speech output.
    /// - Parameters:
    ///   - audio: where speech is played.
    ///   - local: espeak-ng (nil: no local speech, e.g. when the library is missing).
    ///   - configuration: formats and fallback policy (`tts.*`).
    ///   - logger: category `talk.tts` is appended.
    ///   - errorEarcon: played when the gateway's synthesis failed without a fallback (talk.md §7.5.3).
    public init(
        audio: any AudioOutput, local: (any LocalSynthesizer)?, configuration: Configuration = Configuration(),
        logger: Logger = .discarding, errorEarcon: @escaping @Sendable () async -> Void = {}
    ) {
        self.audio = audio
        self.local = local
        self.configuration = configuration
        self.logger = logger.child(category: "talk.tts")
        self.errorEarcon = errorEarcon
    }

    // MARK: - Gateway state

    /// Uses `session` for `talk.speak` / `tts.speak` (nil: node-only, espeak-ng only).
    public func attach(operator session: OperatorSession?) {
        operatorSession = session
    }

    /// Voice aliases and defaults from `talk.config` (talk.md §5.7).
    public func updateTalkConfig(_ config: TalkConfig?) {
        voiceAliases = config?.voiceAliases ?? [:]
    }

    /// Called with the seconds heard whenever a stop records an interruption (barge-in), so
    /// the next prompt can say so (talk.md §3.5).
    public func setInterruptionHandler(_ handler: (@Sendable (Double) async -> Void)?) {
        interruptionHandler = handler
    }

    /// Starts a new Talk session: forgets the directive default and that PCM was unavailable.
    public func resetTalkSession() {
        sessionDirective = nil
        pcmUnavailable = false
    }

    /// True while a speech session runs.
    public var isSpeaking: Bool { current != nil }

    // MARK: - Speaking

    /// Speaks `text` (split into requests of at most 4000 characters at sentence boundaries).
    public func speak(_ text: String, directive: TalkDirective? = nil, purpose: SpeechPurpose = .reply) async
        -> SpeechResult
    {
        let (segments, continuation) = AsyncStream.makeStream(of: String.self)
        continuation.yield(text)
        continuation.finish()
        return await speak(segments: segments, directive: directive, purpose: purpose)
    }

    /// Speaks segments as they arrive (incremental speech, talk.md §7.6) until the stream ends; each
    /// segment is one synthesis request (split further when longer than 4000 characters).
    /// Cancelling the calling task stops this session.
    public func speak(
        segments: AsyncStream<String>, directive: TalkDirective? = nil, purpose: SpeechPurpose = .reply
    ) async -> SpeechResult {
        await runSession(
            segments: segments.map { SpeechSegment(text: $0, id: 0) }, withdrawals: SpeechWithdrawals(),
            directive: directive, purpose: purpose)
    }

    /// Speaks the segments of a reply that may rewrite itself (talk.md §4.3): a segment withdrawn in
    /// `withdrawals` is dropped unless it has started playing.
    public func speak(
        segments: AsyncStream<SpeechSegment>, withdrawals: SpeechWithdrawals, directive: TalkDirective? = nil,
        purpose: SpeechPurpose = .reply
    ) async -> SpeechResult {
        await runSession(segments: segments, withdrawals: withdrawals, directive: directive, purpose: purpose)
    }

    /// One speech session over `segments`.
    private func runSession<Segments: AsyncSequence & Sendable>(
        segments: Segments, withdrawals: SpeechWithdrawals, directive: TalkDirective?, purpose: SpeechPurpose
    ) async -> SpeechResult where Segments.Element == SpeechSegment, Segments.Failure == Never {
        _ = await stopSpeaking(recordInterruption: false)
        let effective = effectiveDirective(directive)
        nextSessionId += 1
        let id = nextSessionId
        let gate = PrefetchGate(permits: 2)
        let (clips, sink) = AsyncStream.makeStream(of: SpeechClip.self, bufferingPolicy: .unbounded)
        let producer = Task {
            await self.synthesize(
                segments: segments, withdrawals: withdrawals, directive: effective, purpose: purpose, gate: gate,
                sink: sink)
        }
        let audio = audio
        let lead = configuration.prefetchLead
        let handoff = configuration.handoffLead
        let player = Task {
            await Self.play(clips, withdrawals: withdrawals, audio: audio, gate: gate, lead: lead, handoff: handoff)
        }
        current = Session(id: id, gate: gate, producer: producer, player: player)
        let played = await withTaskCancellationHandler {
            await player.value
        } onCancel: {
            // Unstructured on purpose: a cancellation handler is synchronous and cannot await
            // the actor; the task only hops onto it.
            Task { await self.stop(session: id) }
        }
        gate.close()
        let synthesized = await producer.value
        if current?.id == id { current = nil }
        let stopped = stoppedSessions.remove(id) != nil
        let result = Self.result(synthesized, played, stopped: stopped)
        logger.info(
            "tts.spoken",
            [
                "outcome": .string("\(result.outcome)"), "playedSeconds": .double(result.playedSeconds),
                "engines": .string(result.engines.map(\.rawValue).joined(separator: ",")),
                "withdrawn": .int(synthesized.withdrawn + played.withdrawn),
            ])
        return result
    }

    /// Stops playback and pending synthesis; returns the seconds heard of the interrupted
    /// speech, or nil when nothing was playing. With `recordInterruption` the interruption
    /// handler is told (barge-in); push-to-talk stops without recording.
    public func stopSpeaking(recordInterruption: Bool) async -> Double? {
        local?.cancel()
        guard let session = current else { return nil }
        current = nil
        stoppedSessions.insert(session.id)
        session.gate.close()
        session.producer.cancel()
        session.player.cancel()
        audio.stop()
        let report = await session.player.value
        guard report.startedAudio else { return nil }
        logger.info(
            "tts.stopped",
            ["playedSeconds": .double(report.playedSeconds), "interruption": .bool(recordInterruption)])
        if recordInterruption, let interruptionHandler { await interruptionHandler(report.playedSeconds) }
        return report.playedSeconds
    }

    /// Stops session `id` if it is still the current one (its caller was cancelled).
    private func stop(session id: Int) async {
        guard current?.id == id else { return }
        _ = await stopSpeaking(recordInterruption: false)
    }

    /// The reply's directive over the session default; a directive without `once` becomes the
    /// new default.
    private func effectiveDirective(_ directive: TalkDirective?) -> TalkDirective {
        guard let directive else { return sessionDirective ?? TalkDirective() }
        if !directive.unknownKeys.isEmpty || !directive.droppedKeys.isEmpty {
            logger.warning(
                "tts.directive.ignored",
                [
                    "unknownKeys": .string(directive.unknownKeys.joined(separator: ",")),
                    "droppedKeys": .string(directive.droppedKeys.joined(separator: ",")),
                ])
        }
        let merged = directive.filling(from: sessionDirective)
        if !directive.once { sessionDirective = merged }
        return merged
    }

    private static func result(_ synthesized: SynthesisReport, _ played: PlaybackReport, stopped: Bool)
        -> SpeechResult
    {
        let outcome: SpeechResult.Outcome
        if stopped || played.interrupted {
            outcome = .interrupted
        } else if let error = played.error {
            outcome = .failed("playback: \(error)")
        } else if !played.startedAudio {
            outcome = synthesized.failures.first.map { .failed($0) } ?? .silent
        } else {
            outcome = .finished
        }
        return SpeechResult(
            outcome: outcome, playedSeconds: played.playedSeconds, engines: synthesized.engines,
            failures: synthesized.failures)
    }
}
