public import ClawTalkAudio

/// One processed capture frame (20 ms at 16 kHz mono by default) from ``AudioFrontEnd``.
public struct FrontEndFrame: Sendable, Equatable {
    /// Echo-cancelled (and high-passed) audio without noise suppression: the wake-word input.
    public var aec: [Int16]
    /// The speech-to-text input: ``aec`` after noise suppression and gain control when they are
    /// enabled, else the same samples as ``aec``.
    public var clean: [Int16]
    /// The capture frame's ``MonotonicTime`` nanoseconds (when its read returned).
    public var timestampNanoseconds: UInt64
    /// The capture frame's sequence number (a gap means dropped frames).
    public var sequence: UInt64
    /// Voice activity (``SpeechDetector`` on ``aec``); always false while echo is active and
    /// not controlled (half-duplex, talk.md §5.5).
    public var isSpeech: Bool
    /// RMS of ``aec``, full scale 1.0.
    public var rms: Double
    /// The talk.md §5.4 energy gate's adaptive noise floor over ``aec`` after this frame (RMS, full scale).
    public var noiseFloor: Double
    /// The talk.md §5.4 energy gate's decision for this frame (`rms ≥ max(1e-3, floor × 6)`), for
    /// endpointing; not forced off in half-duplex.
    public var energyGateSpeech: Bool
    /// The far end played something non-silent recently: its echo may be in this frame (from the
    /// first far-end write until echo delay plus ``FrontEndSettings/echoTail`` after the last).
    public var echoActive: Bool
    /// RMS of the raw capture before echo cancellation (full scale 1.0).
    public var inputRMS: Double
    /// The highest RMS of the far-end frames fed within the echo delay plus
    /// ``FrontEndSettings/echoTail`` before this frame: the loudest playback whose echo can be in
    /// it (0 when nothing was played). With ``inputRMS``, a double-talk test's reference.
    public var farEndRMS: Double
    /// ``inputRMS`` by band; measured only while the far end plays (``echoActive``), else silent.
    public var inputBands: BandLevels
    /// ``farEndRMS`` by band: each band's highest level over the same far-end frames.
    public var farEndBands: BandLevels
    /// How long before this frame's capture the newest far-end frame was written, in nanoseconds
    /// (nil: none yet). The playback thread writes on while anything plays, the speech's own
    /// silences included, so a long wait while a reply plays is output that starved (its queue ran
    /// dry, or a pause flushed it), not a pause in the speech.
    public var sinceFarEndWriteNanoseconds: UInt64?

    /// Creates a frame.
    public init(
        aec: [Int16], clean: [Int16], timestampNanoseconds: UInt64, sequence: UInt64, isSpeech: Bool, rms: Double,
        noiseFloor: Double, energyGateSpeech: Bool, echoActive: Bool, inputRMS: Double = 0, farEndRMS: Double = 0,
        inputBands: BandLevels = BandLevels(), farEndBands: BandLevels = BandLevels(),
        sinceFarEndWriteNanoseconds: UInt64? = nil
    ) {
        self.aec = aec
        self.clean = clean
        self.timestampNanoseconds = timestampNanoseconds
        self.sequence = sequence
        self.isSpeech = isSpeech
        self.rms = rms
        self.noiseFloor = noiseFloor
        self.energyGateSpeech = energyGateSpeech
        self.echoActive = echoActive
        self.inputRMS = inputRMS
        self.farEndRMS = farEndRMS
        self.inputBands = inputBands
        self.farEndBands = farEndBands
        self.sinceFarEndWriteNanoseconds = sinceFarEndWriteNanoseconds
    }
}
