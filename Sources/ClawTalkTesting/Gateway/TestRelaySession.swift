public import ClawTalkProtocol

/// What the test gateway's emulated transcription relay recorded for one `talk.session.create`
/// (talk-contract §9.1, §11 item 8): the params, every appended chunk and the close.
public struct TestRelaySession: Sendable {
    /// `sessionId` (also the `relaySessionId`).
    public var sessionId: String
    /// Creation order (0 for the first session).
    public var ordinal: Int
    /// The connection that created it (events go there only).
    public var connection: Int
    /// The create params as sent.
    public var params: WireJSON
    /// All appended audio, decoded as 24 kHz pcm16 LE mono.
    public var audio: [Int16] = []
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
}

/// The emulated relay's endpointing: 20 ms frames at 24 kHz, speech when RMS ≥ 0.01 of full
/// scale, a segment ends after 300 ms of silence following speech.
struct RelaySpeechSegmenter: Sendable {
    private static let frame = 480
    private static let hangoverFrames = 15
    private var pending: [Int16] = []
    private var segment: [Int16] = []
    private var heardSpeech = false
    private var silentFrames = 0

    /// Appends samples; returns the segments that ended.
    mutating func append(_ samples: [Int16]) -> [[Int16]] {
        pending.append(contentsOf: samples)
        var ended: [[Int16]] = []
        while pending.count >= Self.frame {
            let frame = Array(pending.prefix(Self.frame))
            pending.removeFirst(Self.frame)
            let energy = frame.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(Self.frame)
            let speech = energy.squareRoot() / 32768 >= 0.01
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
