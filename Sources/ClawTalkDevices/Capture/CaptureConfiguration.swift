public import ClawTalkAudio

/// Settings of a ``CaptureEngine``. The defaults suit the node; tests shorten the timings.
public struct CaptureConfiguration: Sendable, Equatable {
    /// The audio delivered: always 16 kHz mono s16 (the server resamples).
    public let format = AudioFormat.speech
    /// The source to capture from, by exact name or case-insensitive description; nil = the
    /// server's default source. A name that does not exist makes ``CaptureEngine/start()`` throw.
    public var source: String?
    /// Frame length in milliseconds (default 20, i.e. 320 samples).
    public var frameMilliseconds: Int
    /// Frames the ring between the capture thread and the consumer holds (default 50 = 1 s).
    public var ringFrames: Int
    /// Frames each ``CaptureEngine/frames()`` stream buffers before dropping the oldest
    /// (default 25 ≈ 500 ms).
    public var streamBufferFrames: Int
    /// Audio kept for ``CaptureEngine/preRoll()`` in milliseconds (default 500; at least 300).
    public var preRollMilliseconds: Int
    /// Least time between two drains of the ring (default zero: each frame as it arrives; a
    /// longer one batches frames, as a slow consumer would).
    public var drainInterval: Duration
    /// The block of frames read and handed over at once while the attached consumer is idle
    /// (default 100 ms; see ``CaptureFrameConsumer``).
    public var idleDrainInterval: Duration
    /// How often the chosen source's presence is checked off the audio thread (default 2 s).
    public var deviceCheckInterval: Duration
    /// First wait after no source could be opened (default 500 ms); doubles per failure.
    public var retryInitialDelay: Duration
    /// Longest wait between attempts to open a source (default 2 s: a restarted sound server is
    /// heard again within about that; each attempt is one failed connect, nothing more).
    public var retryMaximumDelay: Duration
    /// Longest ``CaptureEngine/start()`` waits for the first stream to open (default 10 s).
    public var startTimeout: Duration

    /// Creates a configuration; see each property for its default.
    public init(
        source: String? = nil, frameMilliseconds: Int = 20, ringFrames: Int = 50, streamBufferFrames: Int = 25,
        preRollMilliseconds: Int = 500, drainInterval: Duration = .zero,
        idleDrainInterval: Duration = .milliseconds(100),
        deviceCheckInterval: Duration = .seconds(2), retryInitialDelay: Duration = .milliseconds(500),
        retryMaximumDelay: Duration = .seconds(2), startTimeout: Duration = .seconds(10)
    ) {
        self.source = source
        self.frameMilliseconds = frameMilliseconds
        self.ringFrames = ringFrames
        self.streamBufferFrames = streamBufferFrames
        self.preRollMilliseconds = preRollMilliseconds
        self.drainInterval = drainInterval
        self.idleDrainInterval = idleDrainInterval
        self.deviceCheckInterval = deviceCheckInterval
        self.retryInitialDelay = retryInitialDelay
        self.retryMaximumDelay = retryMaximumDelay
        self.startTimeout = startTimeout
    }

    /// Samples per frame (320 at the defaults).
    public var frameSamples: Int { max(format.sampleCount(milliseconds: frameMilliseconds), 1) }
}
