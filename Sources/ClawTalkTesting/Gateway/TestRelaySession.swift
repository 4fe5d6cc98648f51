public import ClawTalkProtocol

/// Which transcription relay the test gateway emulates (talk.md §9.1).
public enum TestRelayForm: Sendable, Hashable {
    /// Current upstream: the session states G.711 μ-law at 8 kHz, events are keyed by
    /// `transcriptionSessionId` (`ready`, `inputAudio`, `partial`, `transcript` with `final:true`),
    /// and the finals come after `talk.session.close`.
    case current
    /// Older builds: pcm16 LE at 24 kHz, events keyed by `relaySessionId` in the `talkEvent` form,
    /// each segment transcribed while audio is appended (300 ms of silence ends it).
    case legacy
}

/// What the test gateway's emulated transcription relay recorded for one `talk.session.create`
/// (talk.md §9.1, §11 item 8): the params, every appended chunk and the close.
public struct TestRelaySession: Sendable {
    /// `sessionId` (also the `transcriptionSessionId` or `relaySessionId` of its events).
    public var sessionId: String
    /// The relay form that served it.
    public var form: TestRelayForm
    /// The rate of ``audio`` (8000 current, 24000 legacy).
    public var sampleRate: Int
    /// Creation order (0 for the first session).
    public var ordinal: Int
    /// The connection that created it (events go there only).
    public var connection: Int
    /// The create params as sent.
    public var params: WireJSON
    /// All appended audio, decoded to linear samples at ``sampleRate`` (from μ-law for the current
    /// form, pcm16 LE for the legacy one).
    public var audio: [Int16] = []
    /// Bytes appended in all (`audioBase64` decoded).
    public var bytes = 0
    /// Each chunk's `timestamp`, in order.
    public var timestamps: [Int64] = []
    /// Each chunk's length in samples, in order.
    public var chunkSamples: [Int] = []
    /// Most `appendAudio` requests outstanding at once (answers can be delayed by the script).
    public var maxInFlight = 0
    /// Requests outstanding now.
    public var inFlight = 0
    /// Transcripts sent as `transcript.done`.
    public var finals: [String] = []
    /// Whether `talk.session.close` arrived.
    public var closed = false

    /// Records one append of `bytes` bytes that decoded to `samples` (one more in flight).
    mutating func record(_ samples: [Int16], bytes count: Int, timestamp: Int64) {
        bytes += count
        audio.append(contentsOf: samples)
        timestamps.append(timestamp)
        chunkSamples.append(samples.count)
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
    }
}

/// The emulated relay's endpointing: 20 ms frames, speech when RMS ≥ 0.01 of full scale, a
/// segment ends after 300 ms of silence following speech (or at ``flush()``).
struct RelaySpeechSegmenter: Sendable {
    private let frame: Int
    private let threshold: Double
    private static let hangoverFrames = 15
    private var pending: [Int16] = []
    private var segment: [Int16] = []
    private var heardSpeech = false
    private var silentFrames = 0

    /// A segmenter for audio at `sampleRate`; speech is RMS ≥ `threshold` of full scale.
    init(sampleRate: Int, threshold: Double = 0.01) {
        frame = max(sampleRate / 50, 1)
        self.threshold = threshold
    }

    /// The segment in progress, if speech was heard (the end of the audio).
    mutating func flush() -> [[Int16]] {
        defer {
            segment = []
            heardSpeech = false
            silentFrames = 0
        }
        return heardSpeech ? [segment] : []
    }

    /// Appends samples; returns the segments that ended.
    mutating func append(_ samples: [Int16]) -> [[Int16]] {
        pending.append(contentsOf: samples)
        var ended: [[Int16]] = []
        while pending.count >= self.frame {
            let frame = Array(pending.prefix(self.frame))
            pending.removeFirst(self.frame)
            let energy = frame.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(self.frame)
            let speech = energy.squareRoot() / 32768 >= threshold
            if speech {
                heardSpeech = true
                silentFrames = 0
            } else if heardSpeech {
                silentFrames += 1
            }
            if heardSpeech { segment.append(contentsOf: frame) }
            if heardSpeech, silentFrames >= Self.hangoverFrames {
                ended.append(segment)
                segment = []
                heardSpeech = false
                silentFrames = 0
            }
        }
        return ended
    }
}
