/// Which WebRTC audio-processing stages run on captured audio, and how hard.
///
/// Defaults suit the wake-word path: echo cancellation on with moderate suppression (the node
/// hears itself speak), noise suppression and gain control off (they colour the signal the wake
/// model was trained on), high-pass filter and voice detection on.
public struct AudioProcessingSettings: Sendable, Hashable {
    /// Echo canceller variant.
    public enum EchoCancellation: Sendable, Hashable, CaseIterable {
        /// No echo cancellation.
        case off
        /// The full canceller (AEC2); best quality.
        case standard
        /// The mobile canceller (AECM): cheaper, weaker, 8 or 16 kHz only.
        case mobile
    }

    /// How strongly the standard canceller suppresses residual echo.
    public enum EchoSuppression: Sendable, Hashable, CaseIterable {
        /// Least suppression, best double talk.
        case low
        /// The middle ground.
        case moderate
        /// Most suppression; a near talker gets ducked more.
        case high
    }

    /// Noise suppression strength.
    public enum NoiseSuppression: Sendable, Hashable, CaseIterable {
        /// No noise suppression.
        case off
        /// Low.
        case low
        /// Moderate.
        case moderate
        /// High.
        case high
        /// Very high; most speech distortion.
        case veryHigh
    }

    /// Automatic gain control mode (there is no analog mixer to drive, so digital only).
    public enum GainControl: Sendable, Hashable, CaseIterable {
        /// No gain control.
        case off
        /// Adaptive digital gain plus compression towards ``AudioProcessingSettings/targetLevelDBFS``.
        case adaptiveDigital
        /// Fixed digital gain and compression only.
        case fixedDigital
    }

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
    /// Echo canceller (default ``EchoCancellation/standard``).
    public var echoCancellation: EchoCancellation
    /// Residual echo suppression of the standard canceller (default ``EchoSuppression/moderate``).
    public var echoSuppression: EchoSuppression
    /// Standard canceller: use the longer extended filter (default false).
    public var extendedFilter: Bool
    /// Standard canceller: estimate the echo delay internally instead of trusting `delayMs` (default false).
    public var delayAgnostic: Bool
    /// Noise suppression (default ``NoiseSuppression/off``).
    public var noiseSuppression: NoiseSuppression
    /// Gain control (default ``GainControl/off``).
    public var gainControl: GainControl
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
        echoCancellation: EchoCancellation = .standard,
        echoSuppression: EchoSuppression = .moderate,
        extendedFilter: Bool = false,
        delayAgnostic: Bool = false,
        noiseSuppression: NoiseSuppression = .off,
        gainControl: GainControl = .off,
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
