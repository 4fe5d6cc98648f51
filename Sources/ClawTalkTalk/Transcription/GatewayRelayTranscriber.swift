public import ClawTalkAudio
import ClawTalkCodecs
public import ClawTalkGateway
import ClawTalkProtocol
public import ClawTalkSpeech
public import ClawTalkSupport
import Foundation
import Synchronization

/// The `gateway` speech-to-text engine: the Gateway's transcription relay (talk.md §9.1),
/// for hosts without usable local STT. One finished utterance becomes one relay session:
///
/// 1. only with a live operator connection whose `hello-ok` lists `talk.session.create` and
///    `talk.session.appendAudio`, and whose `talk.catalog` reports transcription ready;
/// 2. `talk.session.create {mode:"transcription", transport:"gateway-relay", brain:"none",
///    language?}` (20 s), then the relay's `ready` event (12 s);
/// 3. the audio in the format the session states (`audio.inputEncoding` and
///    `inputSampleRateHz`; ``RelayAudioFormat``): G.711 μ-law at 8 kHz on current upstream, A-law,
///    or pcm16 LE at the stated rate on older builds; resampled, plus 600 ms of silence so an
///    older relay's own endpointing closes the last segment, in 20 ms `appendAudio` chunks with
///    integer millisecond `timestamp`s, at most 4 in flight (each 8 s);
/// 4. `talk.session.close`: upstream commits the audio on close and delivers the final
///    transcripts after it (a drain of up to 5 s), so waiting for a final before closing could
///    wait forever;
/// 5. the final texts of the `user` role, once the relay has been quiet for
///    ``Configuration/settle`` after the last one (or ``Configuration/quietLimit`` without any
///    transcript at all: nothing was said); partial text only if no final ever came.
///
/// Events are matched by `transcriptionSessionId` (current upstream) or `relaySessionId`
/// (older builds). A stated format the node cannot produce is a fallback, logged with the format.
///
/// Every failure throws ``SpeechError/sttEngineUnavailable(engine:reason:)`` naming the step,
/// so a ``FallbackTranscriber`` re-transcribes the same audio locally: nothing said is lost.
/// Endpointing stays local; the transcript then follows the normal delivery (talk.md §3).
public final class GatewayRelayTranscriber: Transcriber {
    /// Timings (the contract's by default; tests shorten them).
    public struct Configuration: Sendable, Hashable {
        /// `talk.session.create` answer limit (20 s).
        public var createTimeout: Duration = .seconds(20)
        /// Limit for the `ready` event after create (12 s).
        public var readyTimeout: Duration = .seconds(12)
        /// Each `appendAudio` answer (8 s).
        public var appendTimeout: Duration = .seconds(8)
        /// Chunks in flight at once (4).
        public var maxInFlight = 4
        /// Silence appended after the utterance (600 ms).
        public var trailingSilence: Duration = .milliseconds(600)
        /// Quiet time after the last transcript event that ends the wait (500 ms).
        public var settle: Duration = .milliseconds(500)
        /// With no transcript event at all, give up this long after the last chunk (3 s).
        public var quietLimit: Duration = .seconds(3)
        /// Longest wait for finals after the close (8 s: upstream drains for up to 5 s).
        public var finalLimit: Duration = .seconds(8)
        /// How long a `talk.catalog` answer is trusted (60 s).
        public var catalogLifetime: Duration = .seconds(60)

        /// The contract's timings.
        public init() {}
    }

    /// `gateway`.
    public let name = STTEngine.gateway.rawValue
    /// Timings in use.
    public let configuration: Configuration
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var session: OperatorSession?
        var catalog: (ready: Bool, at: ContinuousClock.Instant)?
    }

    /// A relay client without an operator session yet (``attach(operator:)``).
    public init(configuration: Configuration = Configuration(), logger: Logger = .discarding) {
        self.configuration = configuration
        self.logger = logger.child(category: "stt.relay")
    }

    /// Uses `session` for later utterances (nil: none, the engine is unavailable).
    public func attach(operator session: OperatorSession?) {
        state.locked { state in
            state.session = session
            state.catalog = nil
        }
    }

    /// Transcribes `audio` through the relay; see the type's steps.
    public func transcribe(_ audio: PCMBuffer, options: TranscriptionOptions) async throws -> Transcript {
        let started = ContinuousClock.now
        guard let session = state.locked({ $0.session }) else { throw unavailable("no operator connection") }
        for method in [OperatorMethod.talkSessionCreate, .talkSessionAppendAudio] {
            guard await session.isAvailable(method.rawValue) else {
                throw unavailable("the gateway does not offer \(method.rawValue)")
            }
        }
        guard try await catalogReady(session) else {
            throw unavailable("the gateway reports no transcription provider (talk.catalog)")
        }
        let turn = RelayTurn()
        let listener = await listen(session, into: turn)
        defer { listener.cancel() }
        let created: TalkSessionCreated
        do {
            let params = try WireJSON(encoding: TalkSessionCreateParams(language: options.language))
            created = try TalkSessionCreated(
                json: try await session.call(
                    OperatorMethod.talkSessionCreate.rawValue, params: params, timeout: configuration.createTimeout))
        } catch {
            throw unavailable("talk.session.create failed: \(error)")
        }
        turn.bind(created.eventSessionIds)
        logger.info(
            "stt.relay.session",
            [
                "sessionId": .string(created.sessionId), "provider": .string(created.provider ?? "-"),
                "encoding": .string(created.inputEncoding), "rate": .int(created.inputSampleRateHz),
            ])
        let text = try await run(created, audio: audio, session: session, turn: turn)
        return Transcript(
            text: text.trimmingCharacters(in: .whitespacesAndNewlines), engine: name,
            model: [created.provider, created.model].compactMap { $0 }.joined(separator: " ").nilIfEmpty,
            audioSeconds: audio.duration, processingTime: .now - started)
    }

    // MARK: - Steps

    private func catalogReady(_ session: OperatorSession) async throws -> Bool {
        if let cached = state.locked({ $0.catalog }), ContinuousClock.now - cached.at < configuration.catalogLifetime {
            return cached.ready
        }
        let method = OperatorMethod.talkCatalog.rawValue
        guard await session.isAvailable(method) else { throw unavailable("the gateway does not offer \(method)") }
        let ready: Bool
        do {
            ready = TalkCatalog(json: try await session.call(method, params: [:])).transcriptionReady
        } catch {
            throw unavailable("talk.catalog failed: \(error)")
        }
        state.locked { $0.catalog = (ready, .now) }
        return ready
    }

    private func listen(_ session: OperatorSession, into turn: RelayTurn) async -> Task<Void, Never> {
        let events = await session.subscribe(events: [GatewayEventName.talkEvent.rawValue])
        return Task {
            for await event in events {
                switch event {
                case .event(_, let frame):
                    if let relay = TalkRelayEvent(json: frame.payload) { turn.receive(relay) }
                case .disconnected(_, let reason):
                    turn.disconnect(reason)
                case .connected:
                    break
                }
            }
        }
    }

    /// Everything after create; the session is closed on every path (after the audio on success).
    private func run(
        _ created: TalkSessionCreated, audio: PCMBuffer, session: OperatorSession, turn: RelayTurn
    ) async throws -> String {
        do {
            guard
                let format = RelayAudioFormat(encoding: created.inputEncoding, sampleRate: created.inputSampleRateHz)
            else {
                throw unavailable(
                    "unsupported relay input \(created.inputEncoding) at \(created.inputSampleRateHz) Hz")
            }
            try await wait(until: configuration.readyTimeout, turn: turn, step: "ready") { $0.ready }
            let samples: [Int16]
            do {
                samples = try Resampler.resample(audio, to: format.sampleRate).samples
            } catch {
                throw unavailable("resampling for the relay failed: \(error)")
            }
            let padding = Int(Double(format.sampleRate) * configuration.trailingSilence.inSeconds)
            try await append(
                samples + [Int16](repeating: 0, count: padding), format: format, to: created, session: session)
        } catch {
            await close(created, session: session)
            throw error
        }
        await close(created, session: session)
        return try await finals(turn)
    }

    /// Sends 20 ms chunks in order, awaiting at most ``Configuration/maxInFlight`` answers at once.
    private func append(
        _ samples: [Int16], format: RelayAudioFormat, to created: TalkSessionCreated, session: OperatorSession
    ) async throws {
        let rate = format.sampleRate
        let chunk = rate / 50
        let method = OperatorMethod.talkSessionAppendAudio.rawValue
        let limit = max(configuration.maxInFlight, 1)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var inFlight = 0
                var offset = 0
                while offset < samples.count {
                    let end = min(offset + chunk, samples.count)
                    let params = try WireJSON(
                        encoding: TalkSessionAppendAudioParams(
                            sessionId: created.sessionId, audioBase64: format.base64(samples[offset..<end]),
                            timestamp: Int64(offset) * 1000 / Int64(rate)))
                    if inFlight == limit {
                        try await group.next()
                        inFlight -= 1
                    }
                    let pending = try await session.start(method, params: params, timeout: configuration.appendTimeout)
                    group.addTask { _ = try await pending.response() }
                    inFlight += 1
                    offset = end
                }
                try await group.waitForAll()
            }
        } catch {
            throw unavailable("talk.session.appendAudio failed: \(error)")
        }
    }

    /// Waits for the final transcripts after the close (see the type's step 5).
    private func finals(_ turn: RelayTurn) async throws -> String {
        let appendedAt = ContinuousClock.now
        while true {
            let snapshot = turn.snapshot()
            if let error = snapshot.error { throw unavailable("relay error: \(error)") }
            let now = ContinuousClock.now
            let quietSince = max(snapshot.lastEventAt ?? appendedAt, appendedAt)
            if !snapshot.finals.isEmpty, snapshot.partial == nil, now - quietSince >= configuration.settle {
                return snapshot.finals.joined(separator: " ")
            }
            if snapshot.finals.isEmpty, snapshot.partial == nil, now - quietSince >= configuration.quietLimit {
                return ""
            }
            if now - appendedAt >= configuration.finalLimit || snapshot.closed {
                if snapshot.finals.isEmpty, snapshot.partial == nil { return "" }
                logger.warning("stt.relay.no_final", ["finals": .int(snapshot.finals.count)])
                return (snapshot.finals + [snapshot.partial].compactMap { $0 }).joined(separator: " ")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func wait(
        until limit: Duration, turn: RelayTurn, step: String, _ condition: (RelayTurn.Snapshot) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while true {
            let snapshot = turn.snapshot()
            if condition(snapshot) { return }
            if let error = snapshot.error { throw unavailable("relay error before \(step): \(error)") }
            guard ContinuousClock.now < deadline else { throw unavailable("no relay \(step) within \(limit)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private func close(_ created: TalkSessionCreated, session: OperatorSession) async {
        do {
            let params = try WireJSON(encoding: TalkSessionCloseParams(sessionId: created.sessionId))
            _ = try await session.call(OperatorMethod.talkSessionClose.rawValue, params: params, timeout: .seconds(5))
        } catch {
            logger.warning(
                "stt.relay.close_failed", ["sessionId": .string(created.sessionId), "error": .string("\(error)")])
        }
    }

    // MARK: - Helpers

    private func unavailable(_ reason: String) -> SpeechError {
        .sttEngineUnavailable(engine: name, reason: reason)
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
