public import ClawTalkSupport

/// Which WebRTC audio-processing stages run on captured audio, and how hard: the configuration's
/// stages (``stages``, a ``ProcessingSettings``) plus what only the engine knows (rate, filter
/// variants, the gain target, the voice detector).
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
    /// The stages and their levels, as the configuration names them (`processing.*`): echo
    /// cancellation and its suppression, noise suppression, gain control, high-pass filter.
    public var stages: ProcessingSettings
    /// Standard canceller: use the longer extended filter (default false).
    public var extendedFilter: Bool
    /// Standard canceller: estimate the echo delay internally instead of trusting `delayMs` (default false).
    public var delayAgnostic: Bool
    /// Gain control target peak level in dB below full scale, 0...31 (default 3, i.e. -3 dBFS).
    public var targetLevelDBFS: Int
    /// Run the WebRTC voice detector and report its decision per frame (default true).
    public var voiceDetection: Bool
    /// Voice detector likelihood (default ``VoiceLikelihood/low``).
    public var voiceLikelihood: VoiceLikelihood

    /// Creates settings; every argument defaults to the wake-path default documented on its property.
    public init(
        sampleRate: Int = 16000,
        stages: ProcessingSettings = ProcessingSettings(),
        extendedFilter: Bool = false,
        delayAgnostic: Bool = false,
        targetLevelDBFS: Int = 3,
        voiceDetection: Bool = true,
        voiceLikelihood: VoiceLikelihood = .low
    ) {
        self.sampleRate = sampleRate
        self.stages = stages
        self.extendedFilter = extendedFilter
        self.delayAgnostic = delayAgnostic
        self.targetLevelDBFS = targetLevelDBFS
        self.voiceDetection = voiceDetection
        self.voiceLikelihood = voiceLikelihood
    }

    /// The sample rates WebRTC APM processes natively.
    public static let supportedSampleRates: [Int] = [8000, 16000, 32000, 48000]
}
