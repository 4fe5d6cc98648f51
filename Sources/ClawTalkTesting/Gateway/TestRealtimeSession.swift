public import ClawTalkProtocol
import Foundation

/// What the test gateway's emulated realtime provider does (talk.md §9.2, §11 item 9).
public struct TestRealtimeScript: Sendable {
    /// `talk.catalog` lists a ready realtime provider with the relay transport.
    public var ready = true
    /// The session sends `ready` after create.
    public var sendsReady = true
    /// The next this many creates fail with `UNAVAILABLE` (each failure counts down).
    public var failCreates = 0
    /// The user transcript sent when the server VAD ends a turn.
    public var userTranscript = "what time is it"
    /// The assistant transcript sent after a reply's audio.
    public var assistantTranscript = "It is noon."
    /// Reply audio, mono pcm16 at 24 kHz (default: 1.2 s of a 330 Hz tone at −12 dBFS).
    public var reply: [Int16] = TestRealtimeScript.tone(seconds: 1.2)
    /// Milliseconds between two 20 ms chunks (16: a little faster than real time, as providers send).
    public var chunkPaceMs = 16
    /// A mark after every this many chunks (and one at the end).
    public var markEveryChunks = 10
    /// Whether the server VAD starts turns (off: replies only on the harness's command, so a
    /// test of the node's own barge-in is not raced by the provider's turn-taking).
    public var serverVAD = true
    /// Delay before each `appendAudio` answer (exposes the client's in-flight limit).
    public var appendDelayMs = 0
    /// The stated output format (to test one the client refuses).
    public var outputEncoding = "pcm16"

    /// The defaults.
    public init() {}

    /// A sine tone at 24 kHz.
    public static func tone(seconds: Double, frequency: Double = 330, amplitude: Double = 0.25) -> [Int16] {
        let count = Int(seconds * 24_000)
        let scale = amplitude * 32767
        let step = 2 * Double.pi * frequency / 24_000
        return (0..<count).map { index -> Int16 in
            let value: Double = scale * sin(step * Double(index))
            return Int16(value)
        }
    }
}

/// One `talk.session.cancelOutput` the emulated provider received.
public struct TestRealtimeCancel: Sendable, Hashable {
    /// The turn named.
    public var turnId: String
    /// What it answered: `applied`, `stale` or `idle`.
    public var status: String
    /// When it arrived.
    public var at: ContinuousClock.Instant
}

/// One mark the emulated provider sent, and its acknowledgement.
public struct TestRealtimeMark: Sendable, Hashable {
    /// The mark's name.
    public var name: String
    /// Its turn.
    public var turnId: String
    /// When it was sent.
    public var sentAt: ContinuousClock.Instant
    /// Audio of its turn sent before it, ms.
    public var audioBeforeMs: Int
    /// When the turn's first chunk was sent.
    public var turnStartedAt: ContinuousClock.Instant
    /// When `acknowledgeMark` named it (nil: not yet).
    public var acknowledgedAt: ContinuousClock.Instant?
}

/// Where one reply turn of the newest open realtime session stands
/// (``TestGateway/realtimeTurn(_:)``): a few values, where a copy of the whole session would
/// hold its recording.
public struct TestRealtimeTurn: Sendable, Equatable {
    /// The turn's id.
    public var turnId: String
    /// Its audio is being sent now.
    public var active: Bool
    /// Its audio ended because of a cancel, replacement or close.
    public var stopped: Bool
    /// Marks sent in it.
    public var marksSent: Int
    /// Of those, the ones acknowledged.
    public var marksAcknowledged: Int
    /// When its first chunk was sent (its first mark carries it; nil before that).
    public var startedAt: ContinuousClock.Instant?

    /// Ended: stopped, or sent whole with every mark acknowledged (played out at the node).
    public var ended: Bool { stopped || (!active && marksSent > 0 && marksAcknowledged == marksSent) }
}

/// What the emulated realtime provider recorded for one `talk.session.create` (talk.md §9.2).
public struct TestRealtimeSession: Sendable {
    /// `sessionId`, also the `relaySessionId` of its events.
    public var sessionId: String
    /// Creation order among realtime sessions.
    public var ordinal: Int
    /// The connection that created it.
    public var connection: Int
    /// The create params as sent.
    public var params: WireJSON
    /// All appended audio (pcm16 at 24 kHz).
    public var audio: [Int16] = []
    /// Each chunk's `timestamp` as sent (a non-integer would have been refused).
    public var timestamps: [Int64] = []
    /// Each chunk's length in samples.
    public var chunkSamples: [Int] = []
    /// When each chunk arrived.
    public var arrivals: [ContinuousClock.Instant] = []
    /// Appends refused for a `timestamp` that was not a JSON integer (a fraction, a string).
    public var refusedTimestamps = 0
    /// Most `appendAudio` requests outstanding at once.
    public var maxInFlight = 0
    /// Outstanding now.
    public var inFlight = 0
    /// Reply turns started, in order.
    public var turns: [String] = []
    /// Chunks sent per turn.
    public var chunksSent: [String: Int] = [:]
    /// Turns whose audio ended because of a cancel, replacement or close.
    public var stoppedTurns: Set<String> = []
    /// Every `cancelOutput`.
    public var cancels: [TestRealtimeCancel] = []
    /// Every mark sent, with its acknowledgement.
    public var marks: [TestRealtimeMark] = []
    /// Acknowledged names that were never sent.
    public var unknownAcknowledgements: [String] = []
    /// `submitToolResult` params received.
    public var toolResults: [WireJSON] = []
    /// `talk.session.close` arrived.
    public var closed = false
    /// The harness dropped it (error or close event).
    public var dropped = false
    /// The turn being sent now.
    public internal(set) var activeTurn: String?
    /// The server VAD: −30 dBFS, so the residual of the node's own reply after echo cancellation
    /// is not taken for the user (a provider's neural VAD is not fooled by it either).
    var vad = RelaySpeechSegmenter(sampleRate: 24_000, threshold: 0.03)

    /// Records one append (its audio, timestamp, length and arrival; one more in flight) and
    /// returns how many user turns the server VAD heard end in it: a turn needs 100 ms of speech
    /// before the 300 ms of silence that ends it (a provider's server VAD ignores clicks too).
    mutating func record(_ samples: [Int16], timestamp: Int64, arrived: ContinuousClock.Instant) -> Int {
        audio.append(contentsOf: samples)
        timestamps.append(timestamp)
        chunkSamples.append(samples.count)
        arrivals.append(arrived)
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
        return vad.append(samples).filter { $0.count >= 9_600 }.count
    }
}
