public import ClawTalkAudio

/// One capture of the user's speech for PTT or a Talk turn: audio from the front end (with the
/// ≥ 300 ms pre-roll) until it is finished or cancelled. The live implementation sits on the
/// capture engine and audio front end; tests play WAV fixtures.
public protocol UtteranceCapturing: Sendable {
    /// Opens the microphone (throws `TalkError.microphoneUnavailable`) and starts collecting,
    /// pre-roll first. Frames arrive on the returned stream (16 kHz mono, 20 ms) until `finish`.
    func begin() async throws -> any UtteranceCapture
}

/// A running capture.
public protocol UtteranceCapture: Sendable {
    /// 20 ms frames with the front end's speech decision, for silence detection.
    var frames: AsyncStream<UtteranceFrame> { get }
    /// Everything captured so far (pre-roll included), without stopping (Talk mode's barge-in
    /// check transcribes speech heard during playback while the capture goes on).
    func snapshot() async -> PCMBuffer
    /// Stops capturing and returns everything captured (pre-roll included).
    func finish() async -> PCMBuffer
    /// Stops capturing and discards the audio.
    func cancel() async
}

/// One 20 ms frame of a capture.
public struct UtteranceFrame: Sendable, Equatable {
    /// Seconds since the capture began.
    public var time: Double
    /// The front end's speech decision for this frame.
    public var isSpeech: Bool
    /// RMS level, full scale 1.0.
    public var rms: Double
    /// When the frame was captured (CLOCK_MONOTONIC nanoseconds, the capture engine's stamp);
    /// nil when not known (fixtures).
    public var timestampNanoseconds: UInt64?
    /// The node's own playback may be in this frame (the front end's far-end activity); nil when
    /// not known (no front end, fixtures).
    public var echoActive: Bool?
    /// The raw capture's level and the far end's, for the double-talk test; nil when not known
    /// (no front end, fixtures).
    public var reference: EchoReference?

    /// Creates a frame record.
    public init(
        time: Double, isSpeech: Bool, rms: Double, timestampNanoseconds: UInt64? = nil, echoActive: Bool? = nil,
        reference: EchoReference? = nil
    ) {
        self.time = time
        self.isSpeech = isSpeech
        self.rms = rms
        self.timestampNanoseconds = timestampNanoseconds
        self.echoActive = echoActive
        self.reference = reference
    }
}
