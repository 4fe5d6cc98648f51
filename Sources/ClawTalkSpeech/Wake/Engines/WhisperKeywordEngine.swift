import ClawTalkAudio
public import ClawTalkSupport

/// Stage-1 spotting of any trigger by the Whisper keyword scorer, `clawtalk-wake` (a Wyoming
/// wake service run beside the speech-to-text server; `python/clawtalk_wake.py`).
///
/// The engine cuts its input into speech segments (``SpeechSegmenter``: nothing is sent in
/// silence) and streams each one, from 0.4 s before its first speech frame to 0.25 s after its
/// last, as `audio-start` … `audio-chunk`s (100 ms) … `audio-stop`. The server scores the
/// segment while it arrives and at its end, and answers `detection {name, timestamp}` for each
/// trigger whose keyword score reaches its threshold or whose text matches. ``WakeHit/atSeconds``
/// is the timestamp (the end of the scored audio on this engine's clock) plus the server's scoring
/// time: when the hit would be known if the audio came in real time.
///
/// The connection is polled, never awaited: ``process(_:)`` writes to a local socket and reads
/// only what has arrived. When the server does not answer, the engine says so
/// (``isConnected`` false, ``onLinkChange``) and tries again every ``Configuration/retryInterval``
/// seconds of audio; ``KeywordSpotter`` meanwhile feeds PocketSphinx. ``finish()`` and
/// ``reset()`` wait (file mode) until the server has answered every segment sent.
///
/// Not thread-safe (see ``WakeEngine``).
public final class WhisperKeywordEngine: WakeEngine {
    /// The name in ``WakeHit/engine``.
    public static let engineName = "whisper"

    /// Where the scorer is and what it is told.
    public struct Configuration: Sendable {
        /// Where `clawtalk-wake` (or `clawtalk-speech`) listens (``WakeSettings/address(paths:)``).
        public var address: WyomingAddress
        /// Keyword-score thresholds by trigger (`wake.thresholds`); the server's default (0.01)
        /// for the others.
        public var thresholds: [String: Double]
        /// Extra spellings by trigger (`wake.aliases`).
        public var aliases: [String: [String]]
        /// Whether the scorer's acoustic heads may wake the brand triggers (`wake.acousticHeads`).
        public var acousticHeads: Bool
        /// Segment timings.
        public var segmenter: SpeechSegmenter.Options
        /// Limit for a connection attempt.
        public var connectTimeout: Duration
        /// Seconds of audio between connection attempts while the server does not answer.
        public var retryInterval: Double
        /// Limit for the server to answer everything sent, in ``finish()`` and ``reset()``.
        public var drainTimeout: Duration

        /// A configuration with the defaults above.
        public init(
            address: WyomingAddress, thresholds: [String: Double] = [:],
            aliases: [String: [String]] = [:], acousticHeads: Bool = true,
            segmenter: SpeechSegmenter.Options = .init(),
            connectTimeout: Duration = .milliseconds(300), retryInterval: Double = 2,
            drainTimeout: Duration = .seconds(30)
        ) {
            self.address = address
            self.thresholds = thresholds
            self.aliases = aliases
            self.acousticHeads = acousticHeads
            self.segmenter = segmenter
            self.connectTimeout = connectTimeout
            self.retryInterval = retryInterval
            self.drainTimeout = drainTimeout
        }
    }

    /// A change of the connection, for one log line each.
    public enum LinkEvent: Sendable, Equatable {
        /// The scorer answers at this address.
        case connected(String)
        /// It does not (any more): why.
        case lost(String)
    }

    /// ``engineName``.
    public var name: String { Self.engineName }
    /// The triggers, as configured.
    public private(set) var triggers: [String]
    /// The configuration.
    public let configuration: Configuration
    /// Called on the engine's thread when the connection comes or goes.
    public var onLinkChange: ((LinkEvent) -> Void)?
    /// Whether the scorer answers (false until the first connection).
    public var isConnected: Bool { link != nil }
    /// Segments sent to the scorer since the engine was made.
    public private(set) var segmentsSent = 0

    private var link: WakeScorerLink?
    private var segmenter: SpeechSegmenter
    private var chunker = FrameChunker(frameSize: SpeechSegmenter.frameSize)
    private var ring: PreRollBuffer
    /// Audio of the open segment not sent yet (all of it until the segment is confirmed).
    private var unsent: [Int16] = []
    private var sending = false
    /// Samples framed since the start or ``reset()``.
    private var position = 0
    private var nextAttempt = 0
    private var lastLoss: String?
    private static let sendSamples = AudioFormat.speech.sampleCount(milliseconds: 100)
    private static let rate = Double(AudioFormat.speech.sampleRate)

    /// An engine for `triggers`; it connects on the first audio.
    public init(triggers: [String], configuration: Configuration) {
        self.triggers = triggers
        self.configuration = configuration
        segmenter = SpeechSegmenter(options: configuration.segmenter)
        ring = PreRollBuffer(milliseconds: Int(configuration.segmenter.preRoll * 1000) + 20)
    }

    /// The keyword-score threshold the server applies to `trigger` unless told otherwise.
    public static let defaultThreshold = 0.01

    /// The threshold sent for `trigger` (its `wake.thresholds` entry or ``defaultThreshold``).
    public func threshold(for trigger: String) -> Double {
        let key = TriggerText.key(trigger)
        return configuration.thresholds.first { TriggerText.key($0.key) == key }?.value ?? Self.defaultThreshold
    }

    /// Moves the clock on by `samples` (an engine created in the middle of a stream).
    func skip(_ samples: Int) {
        position += samples
    }

    /// Replaces the triggers; the server hears them before the next segment.
    public func setTriggers(_ triggers: [String]) throws {
        self.triggers = triggers
        guard let link else { return }
        do {
            try link.detect(
                triggers, thresholds: configuration.thresholds, aliases: configuration.aliases,
                acousticHeads: configuration.acousticHeads)
        } catch {
            drop(error)
        }
    }

    /// Frames and segments the samples, sends speech, and returns the detections that arrived.
    public func process(_ samples: UnsafeBufferPointer<Int16>) throws -> [WakeHit] {
        if link == nil, position >= nextAttempt { connect() }
        chunker.append(samples) { frame in handle(frame) }
        return poll()
    }

    /// Ends the open segment and waits for the server's answers.
    public func finish() throws -> [WakeHit] {
        var hits = poll()
        if sending { endSegment() }
        unsent.removeAll()
        segmenter.reset()
        guard let link else { return hits }
        do {
            hits += try link.drain(timeout: configuration.drainTimeout).compactMap(hit)
        } catch {
            drop(error)
        }
        return hits
    }

    /// Starts over: answers still due are waited for and dropped; the clock restarts at zero.
    public func reset() throws {
        _ = try finish()
        chunker.reset()
        ring.removeAll()
        position = 0
        nextAttempt = 0
    }

    // MARK: - Private

    private func handle(_ frame: UnsafeBufferPointer<Int16>) {
        let step = segmenter.process(frame)
        switch step {
        case .silence:
            break
        case .opened:
            unsent = ring.snapshot()
            unsent.append(contentsOf: frame)
        case .pending:
            unsent.append(contentsOf: frame)
        case .confirmed:
            unsent.append(contentsOf: frame)
            startSegment()
        case .speaking:
            if sending {
                unsent.append(contentsOf: frame)
                if unsent.count >= Self.sendSamples { flush() }
            }
        case .closed(let confirmed):
            if confirmed, sending {
                unsent.append(contentsOf: frame)
                endSegment()
            }
            unsent.removeAll()
        }
        ring.append(frame)
        position += frame.count
    }

    /// Sends `audio-start` and the audio so far of a confirmed segment.
    private func startSegment() {
        guard let link else {
            unsent.removeAll()
            return
        }
        let start = position + SpeechSegmenter.frameSize - unsent.count
        do {
            try link.start(atMilliseconds: start * 1000 / AudioFormat.speech.sampleRate)
            sending = true
            segmentsSent += 1
            flush()
        } catch {
            drop(error)
        }
    }

    private func flush() {
        guard let link, sending, !unsent.isEmpty else { return }
        do {
            try link.send(unsent[...])
            unsent.removeAll(keepingCapacity: true)
        } catch {
            drop(error)
        }
    }

    private func endSegment() {
        flush()
        sending = false
        guard let link else { return }
        do {
            try link.stop()
        } catch {
            drop(error)
        }
    }

    private func connect() {
        nextAttempt = position + Int(configuration.retryInterval * Self.rate)
        do {
            let link = try WakeScorerLink(address: configuration.address, timeout: configuration.connectTimeout)
            try link.detect(
                triggers, thresholds: configuration.thresholds, aliases: configuration.aliases,
                acousticHeads: configuration.acousticHeads)
            self.link = link
            lastLoss = nil
            onLinkChange?(.connected("\(configuration.address)"))
        } catch {
            report(loss: "\(error)")
        }
    }

    private func poll() -> [WakeHit] {
        guard let link else { return [] }
        do {
            return try link.poll().compactMap(hit)
        } catch {
            drop(error)
            return []
        }
    }

    private func hit(_ detection: WakeScorerLink.Detection) -> WakeHit? {
        let key = TriggerText.key(detection.name)
        guard let trigger = triggers.first(where: { TriggerText.key($0) == key }) else { return nil }
        return WakeHit(
            trigger: trigger, engine: Self.engineName,
            atSeconds: Double(detection.timestampMilliseconds + detection.computeMilliseconds) / 1000,
            score: detection.score, threshold: threshold(for: trigger),
            heardUntilSeconds: Double(detection.timestampMilliseconds) / 1000)
    }

    private func drop(_ error: any Error) {
        link = nil
        sending = false
        unsent.removeAll()
        nextAttempt = position + Int(configuration.retryInterval * Self.rate)
        report(loss: "\(error)")
    }

    private func report(loss: String) {
        guard lastLoss != loss else { return }
        lastLoss = loss
        onLinkChange?(.lost(loss))
    }
}
