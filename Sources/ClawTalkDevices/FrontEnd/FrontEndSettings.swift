public import ClawTalkSupport

/// Settings of an ``AudioFrontEnd``. The defaults are the node's: AEC at moderate suppression
/// with the high-pass filter, no noise suppression or gain control (architecture.md §7.2).
public struct FrontEndSettings: Sendable, Hashable {
    /// The processing stages as the configuration names them (`processing.*`; default
    /// ``ProcessingSettings/init(echoCancellation:aecSuppression:noiseSuppression:gainControl:highPassFilter:)``'s).
    /// Echo cancellation off makes the front end half-duplex (see ``AudioFrontEnd/echoControlled``);
    /// low or moderate echo suppression keep a barge-in talker, high ducks them. Noise suppression
    /// and gain control apply to the STT signal (``FrontEndFrame/clean``) only; the high-pass
    /// filter to both signals.
    public var stages: ProcessingSettings
    /// Standard canceller: the extended (128 ms) filter (default true: tolerates a delay estimate
    /// that is off by tens of milliseconds).
    public var extendedFilter: Bool
    /// Standard canceller: let the library correct the echo delay itself (default true).
    public var delayAgnostic: Bool
    /// Capture-side part of the echo delay: from a sound reaching the source to the capture
    /// read that returns it (default 0; see ``AudioFrontEnd`` for how it was chosen). Set it to
    /// the source's latency when it is large (a USB or Bluetooth microphone).
    public var captureLatency: Duration
    /// The delay handed to the canceller is this much below the estimate (default 10 ms): its
    /// filter covers echoes up to 48 ms (128 ms extended) later than the stated delay, but none
    /// that come earlier, so an estimate that is too high costs far more than one too low.
    public var echoDelayHeadroom: Duration
    /// Playback latency assumed until the playback controller has measured one (default 50 ms).
    public var assumedOutputLatency: Duration
    /// A fixed echo delay for the canceller instead of output latency plus ``captureLatency``
    /// minus ``echoDelayHeadroom`` (default nil).
    public var echoDelayOverride: Duration?
    /// After the far end falls silent, echo is still considered active this long (default
    /// 300 ms, the talk contract's half-duplex tail, talk.md §5.5).
    public var echoTail: Duration
    /// The output is acoustically isolated from the microphone (headphones): echo counts as
    /// controlled without AEC (default false).
    public var outputIsolated: Bool
    /// Milliseconds of the AEC signal kept for ``AudioFrontEnd/preRoll()`` (default 500, at
    /// least 300).
    public var preRollMilliseconds: Int
    /// Frames each ``AudioFrontEnd/frames()`` stream buffers before dropping the oldest
    /// (default 25 ≈ 500 ms).
    public var streamBufferFrames: Int
    /// Far-end frames (10 ms) buffered between the render tap and the processing (default 200).
    public var farEndCapacity: Int

    /// Creates settings; see each property for its default.
    public init(
        stages: ProcessingSettings = ProcessingSettings(), extendedFilter: Bool = true, delayAgnostic: Bool = true,
        captureLatency: Duration = .zero, echoDelayHeadroom: Duration = .milliseconds(10),
        assumedOutputLatency: Duration = .milliseconds(50),
        echoDelayOverride: Duration? = nil, echoTail: Duration = .milliseconds(300), outputIsolated: Bool = false,
        preRollMilliseconds: Int = 500, streamBufferFrames: Int = 25, farEndCapacity: Int = 200
    ) {
        self.stages = stages
        self.extendedFilter = extendedFilter
        self.delayAgnostic = delayAgnostic
        self.captureLatency = captureLatency
        self.echoDelayHeadroom = echoDelayHeadroom
        self.assumedOutputLatency = assumedOutputLatency
        self.echoDelayOverride = echoDelayOverride
        self.echoTail = echoTail
        self.outputIsolated = outputIsolated
        self.preRollMilliseconds = preRollMilliseconds
        self.streamBufferFrames = streamBufferFrames
        self.farEndCapacity = farEndCapacity
    }

    /// True when echo is under control: an echo canceller runs or the output is isolated.
    public var echoControlled: Bool { stages.needsEchoCancellation || outputIsolated }

    /// True when the STT signal gets its own noise suppression or gain control stage.
    public var cleansSpeech: Bool { stages.noiseSuppression != .off || stages.gainControl != .off }

    /// The first APM: echo cancellation and high-pass only (its output feeds the wake engine).
    /// WebRTC's voice flag stays off: it flags stationary noise (``SpeechDetector`` decides).
    var echoStage: AudioProcessingSettings {
        AudioProcessingSettings(
            stages: ProcessingSettings(
                echoCancellation: stages.echoCancellation, aecSuppression: stages.aecSuppression,
                highPassFilter: stages.highPassFilter),
            extendedFilter: extendedFilter, delayAgnostic: delayAgnostic, voiceDetection: false)
    }

    /// The second APM, on the first one's output: noise suppression and gain control only.
    var cleanStage: AudioProcessingSettings {
        AudioProcessingSettings(
            stages: ProcessingSettings(
                echoCancellation: .off, noiseSuppression: stages.noiseSuppression, gainControl: stages.gainControl,
                highPassFilter: false),
            voiceDetection: false)
    }
}
