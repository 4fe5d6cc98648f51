public import ClawTalkSupport

/// Which WebRTC audio-processing stages run on captured audio, and how hard: the configuration's
/// stages (``ProcessingSettings``'s modes and levels) plus what only the engine knows (rate,
/// filter variants, the voice detector).
///
/// Defaults suit the wake-word path: echo cancellation on with moderate suppression (the node
/// hears itself speak), noise suppression and gain control off (they colour the signal the wake
/// model was trained on), high-pass filter and voice detection on.
public struct AudioProcessingSettings: Sendable, Hashable {
    /// How readily the voice detector flags a frame as voice.
    public enum VoiceLikelihood: Sendable, Hashable, CaseIterable {
        /// Flags the fewest frames.
        case veryLow
        /// WebRTC's default.
        case low
        /// More frames flagged.
        case moderate
        /// Flags the most frames (least speech clipped, most noise flagged).
        case high
    }

    /// Processing rate in Hz: 8000, 16000, 32000 or 48000 (default 16000). Render and capture alike.
    public var sampleRate: Int
    /// Echo canceller (default ``EchoCancellationMode/aec``).
    public var echoCancellation: EchoCancellationMode
    /// Residual echo suppression of the standard canceller (default ``SuppressionLevel/moderate``).
    public var echoSuppression: SuppressionLevel
    /// Standard canceller: use the longer extended filter (default false).
    public var extendedFilter: Bool
    /// Standard canceller: estimate the echo delay internally instead of trusting `delayMs` (default false).
    public var delayAgnostic: Bool
    /// Noise suppression (default ``NoiseSuppressionLevel/off``).
    public var noiseSuppression: NoiseSuppressionLevel
    /// Gain control (default ``GainControlMode/off``).
    public var gainControl: GainControlMode
    /// Gain control target peak level in dB below full scale, 0...31 (default 3, i.e. -3 dBFS).
    public var targetLevelDBFS: Int
    /// Remove rumble below ~80 Hz (default true).
    public var highPassFilter: Bool
    /// Run the WebRTC voice detector and report its decision per frame (default true).
    public var voiceDetection: Bool
    /// Voice detector likelihood (default ``VoiceLikelihood/low``).
    public var voiceLikelihood: VoiceLikelihood

    /// Creates settings; every argument defaults to the wake-path default documented on its property.
    public init(
        sampleRate: Int = 16000,
        echoCancellation: EchoCancellationMode = .aec,
        echoSuppression: SuppressionLevel = .moderate,
        extendedFilter: Bool = false,
        delayAgnostic: Bool = false,
        noiseSuppression: NoiseSuppressionLevel = .off,
        gainControl: GainControlMode = .off,
        targetLevelDBFS: Int = 3,
        highPassFilter: Bool = true,
        voiceDetection: Bool = true,
        voiceLikelihood: VoiceLikelihood = .low
    ) {
        self.sampleRate = sampleRate
        self.echoCancellation = echoCancellation
        self.echoSuppression = echoSuppression
        self.extendedFilter = extendedFilter
        self.delayAgnostic = delayAgnostic
        self.noiseSuppression = noiseSuppression
        self.gainControl = gainControl
        self.targetLevelDBFS = targetLevelDBFS
        self.highPassFilter = highPassFilter
        self.voiceDetection = voiceDetection
        self.voiceLikelihood = voiceLikelihood
    }

    /// The sample rates WebRTC APM processes natively.
    public static let supportedSampleRates: [Int] = [8000, 16000, 32000, 48000]
}
