public import ClawTalkGateway
public import ClawTalkProtocol
public import ClawTalkSupport
import Foundation

/// Realtime Talk over the gateway relay (talk.md §9.2): the I/O around a
/// ``RealtimeTalkMachine``. One ``run()`` is one Talk session on the relay:
///
/// - `talk.session.create` (mode `realtime`, transport `gateway-relay`, brain `agent-consult`),
///   then `ready` within 12 s; a stated format clawtalk cannot produce or play ends the run
///   (native Talk, logged);
/// - the echo-cancelled microphone (``RealtimeMicrophone``) resampled to the session's input rate
///   and sent in 20 ms `appendAudio` chunks, integer millisecond timestamps from the session's
///   start, in order, at most 4 in flight (``RealtimeMicPump``);
/// - reply audio queued on the ``RealtimeSpeaker`` (bounded to 32 chunks), marks acknowledged once
///   the audio before them played, transcripts to `onTranscript` and the log (redacted unless
///   configured), tool calls refused with `submitToolResult`;
/// - barge-in: the project's onset detector (``RealtimeOnsetDetector``) over the output stops it at
///   once and sends `cancelOutput` with the playing turn; audio keeps flowing to the provider;
/// - failures retried after 0.5 s and 2 s, then ``RealtimeTalkOutcome/fellBack(reason:)``;
///   cancelling the run ends Talk and closes the session.
public actor RealtimeTalkSession {
    enum Input: Sendable {
        case relay(WireJSON?)
        case disconnected(String)
        case created(generation: Int, RealtimeSessionCreated)
        case createFailed(generation: Int, String)
        case readyTimeout(generation: Int)
        case retryDue
        case played(Int)
        case appendFailed(generation: Int, String)
        case microphoneFailed(String)
        case onset
        /// The idle timeout passed.
        case idle
        /// Nothing: run the work queued outside the loop.
        case flush
    }

    let session: OperatorSession
    let microphone: any RealtimeMicrophone
    let speaker: any RealtimeSpeaker
    let configuration: RealtimeTalkConfiguration
    let logger: Logger
    let onTranscript: @Sendable (RealtimeRelayEvent.Role, String, Bool) -> Void

    var machine = RealtimeTalkMachine()
    var onset: RealtimeOnsetDetector
    var bargeIn: RealtimeBargeIn
    var continuation: AsyncStream<Input>.Continuation?
    var work: [@Sendable () async -> Void] = []
    var outcome: RealtimeTalkOutcome?
    let started = ContinuousClock.now
    /// The session being created or in use, by generation.
    var generation = 0
    var current: RealtimeSessionCreated?
    var early: [WireJSON] = []
    var items: [Int: any RealtimePlaybackItem] = [:]
    var pendingSamples: [Int16] = []
    var microphoneStarted = false
    /// Samples appended to the current session (its timestamps).
    var appendedSamples = 0
    /// The reply the onset detector watches (nil: no output).
    var outputTurn: String?
    /// When the barge-in's pause began (logs).
    var pausedAt: Double?
    /// When the user last spoke or a reply last played (the idle timeout counts from there).
    var lastActivity = 0.0
    /// Push-to-talk holds the microphone: no reply plays and no audio goes to the provider.
    var pushToTalk = false
    /// The onset detector's recent frames, compact (issue 34 diagnostics: the evidence before and
    /// after each onset, logged once 0.3 s after it).
    var frameTrace: [String] = []
    /// Frames logged since the onset (nil: no onset being traced).
    var traceSinceOnset: Int?
    /// When the current reply's first chunk arrived and when the onset stopped it (logs).
    var replyStartedAt: ContinuousClock.Instant?
    /// How long the frame of the last barge-in decision took from its capture read to its decision,
    /// in milliseconds (nil: the frame carried no timestamp; logs).
    var decisionFrameAgeMs: Double?
    /// Microphone frames come later than ``staleFrameAge`` (logged once per stall).
    var microphoneBehind = false

    /// A run over `session` with the given audio seams.
    public init(
        session: OperatorSession, microphone: any RealtimeMicrophone, speaker: any RealtimeSpeaker,
        configuration: RealtimeTalkConfiguration, logger: Logger = .discarding,
        onTranscript: @escaping @Sendable (RealtimeRelayEvent.Role, String, Bool) -> Void = { _, _, _ in }
    ) {
        self.session = session
        self.microphone = microphone
        self.speaker = speaker
        self.configuration = configuration
        self.logger = logger.child(category: "talk.realtime")
        self.onTranscript = onTranscript
        onset = RealtimeOnsetDetector(configuration: configuration.onset)
        bargeIn = RealtimeBargeIn(settings: configuration.bargeIn)
    }

    /// The machine (tests, status).
    public var state: RealtimeTalkMachine { machine }

    /// Push-to-talk took the microphone (true) or gave it back (false), as it preempts native
    /// Talk: a playing reply stops and is cancelled (`cancelOutput`), and until the release no
    /// microphone audio goes to the provider (the push-to-talk utterance goes to the chat).
    public func setPushToTalk(_ active: Bool) {
        guard pushToTalk != active else { return }
        pushToTalk = active
        logger.info("realtime.push_to_talk", ["active": .bool(active)])
        guard active else { return }
        perform(machine.handle(.onset))
        yield(.flush)
    }

    /// Runs until cancelled (Talk ended: ``RealtimeTalkOutcome/ended``, the session closed) or
    /// until the relay fails past its reconnects (``RealtimeTalkOutcome/fellBack(reason:)``).
    ///
    /// The work of each input (a chunk to play and report, a mark to acknowledge, a request) runs
    /// as a child of a discarding group: a plain task group keeps every finished child until it
    /// is awaited, and with dozens a second the node grew by 7.6 MiB a minute of realtime Talk
    /// (bench, 2026-12-07: 1.2 → 228 MiB in use after 30 min), its reply queue overflowed again and
    /// again, and its microphone path fell seconds behind.
    public func run() async -> RealtimeTalkOutcome {
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
        self.continuation = continuation
        let events = await session.subscribe(events: [GatewayEventName.talkEvent.rawValue])
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await event in events {
                    switch event {
                    case .event(_, let frame): continuation.yield(.relay(frame.payload))
                    case .disconnected(_, let reason): continuation.yield(.disconnected(reason))
                    case .connected: break
                    }
                }
            }
            apply(.start(now: now))
            for item in drainWork() { group.addTask(operation: item) }
            for await input in inputs {
                receive(input)
                for item in drainWork() { group.addTask(operation: item) }
                if outcome != nil { break }
            }
            group.cancelAll()
        }
        continuation.finish()
        if outcome == nil || outcome == .idle {
            // Talk ended: stop output and close the session even though this task is cancelled.
            apply(.exit)
            let pending = drainWork()
            await Task { for item in pending { await item() } }.value
        }
        speaker.stop()
        return outcome ?? .ended
    }

    var now: Double { (ContinuousClock.now - started).inSeconds }

    func drainWork() -> [@Sendable () async -> Void] {
        defer { work = [] }
        return work
    }

    func yield(_ input: Input) {
        continuation?.yield(input)
    }

    // MARK: - Inputs

    func receive(_ input: Input) {
        switch input {
        case .relay(let payload):
            relay(payload)
        case .disconnected(let reason):
            apply(.failure("operator connection lost: \(reason)", now: now))
        case .created(let generation, let created):
            guard generation == self.generation, machine.phase == .creating else { return }
            self.created(created)
        case .createFailed(let generation, let reason):
            guard generation == self.generation else { return }
            apply(.failure("talk.session.create failed: \(reason)", now: now))
        case .readyTimeout(let generation):
            guard generation == self.generation, machine.phase == .awaitingReady else { return }
            apply(.failure("no ready within \(configuration.readyTimeout)", now: now))
        case .retryDue:
            apply(.retryDue)
        case .played(let sequence):
            items[sequence] = nil
            apply(.played(sequence: sequence))
        case .appendFailed(let generation, let reason):
            guard generation == self.generation, machine.phase == .live else { return }
            apply(.failure("appendAudio failed: \(reason)", now: now))
        case .microphoneFailed(let reason):
            logger.warning("realtime.microphone_failed", ["error": .string(reason)])
            apply(.exit)
            outcome = .fellBack(reason: "microphone: \(reason)")
        case .flush:
            break
        case .idle:
            guard outcome == nil else { return }
            logger.info("realtime.idle_timeout", ["afterS": .double(configuration.idleTimeout ?? 0)])
            // The run ends; the session is closed after the loop, as when Talk ends.
            outcome = .idle
        case .onset:
            let turn = machine.playingTurn
            let actions = machine.handle(.onset)
            if !actions.isEmpty {
                logger.info(
                    "realtime.barge_in",
                    [
                        "turnId": .string(turn ?? "-"), "reason": .string(bargeIn.reason?.rawValue ?? "-"),
                        "replyMs": .int(replyStartedAt.map { Int(($0.duration(to: .now)).inSeconds * 1000) } ?? -1),
                        "frameAgeMs": .double(decisionFrameAgeMs ?? -1),
                    ])
            }
            perform(actions)
        }
    }

    private func created(_ created: RealtimeSessionCreated) {
        current = created
        appendedSamples = 0
        logger.info(
            "realtime.session",
            [
                "sessionId": .string(created.sessionId), "provider": .string(created.provider ?? "-"),
                "input": .string(created.input.description), "output": .string(created.output.description),
            ])
        guard created.input.isSupported, created.output.isSupported else {
            let reason = "unsupported relay audio: input \(created.input), output \(created.output)"
            logger.warning("realtime.unsupported_format", ["reason": .string(reason)])
            apply(.exit)
            outcome = .fellBack(reason: reason)
            return
        }
        apply(.created(sessionId: created.sessionId))
        let generation = generation
        let limit = configuration.readyTimeout
        work.append { [weak self] in
            try? await Task.sleep(for: limit)
            await self?.yield(.readyTimeout(generation: generation))
        }
        let buffered = early
        early = []
        for payload in buffered { relay(payload) }
    }

    /// A `talk.event` payload: the current session's, decoded; others ignored (kept briefly while
    /// a create is pending, since `ready` may overtake its answer).
    func relay(_ payload: WireJSON?) {
        guard let id = RealtimeRelayEvent.relaySessionId(of: payload) else { return }
        guard let created = current, machine.phase != .creating else {
            if machine.phase == .creating, let payload {
                early.append(payload)
                if early.count > 16 { early.removeFirst() }
            }
            return
        }
        guard id == created.relaySessionId || id == created.sessionId else { return }
        let event: RealtimeRelayEvent
        do {
            event = try RealtimeRelayEvent(
                json: payload, format: created.output, maximumChunkBytes: configuration.chunkLimit(created.output))
        } catch {
            apply(.badInput(error))
            return
        }
        dispatch(event, created: created)
    }
}
