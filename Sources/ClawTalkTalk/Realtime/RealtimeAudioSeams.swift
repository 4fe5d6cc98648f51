/// One 20 ms frame of the echo-cancelled microphone for realtime Talk (talk.md §9.2 item 2).
public struct RealtimeMicFrame: Sendable {
    /// Mono samples at ``sampleRate`` (the front end's clean signal).
    public var samples: [Int16]
    /// Their rate (16 kHz from the front end).
    public var sampleRate: Int
    /// The front end's speech decision.
    public var isSpeech: Bool
    /// RMS level, full scale 1.0.
    public var rms: Double
    /// The node's own playback may be in the frame (nil: not known).
    public var echoActive: Bool?
    /// Raw capture and far-end levels for the double-talk test (nil: none).
    public var reference: EchoReference?
    /// When the frame was captured, monotonic nanoseconds (nil: not known).
    public var timestampNanoseconds: UInt64?

    /// A frame record.
    public init(
        samples: [Int16], sampleRate: Int, isSpeech: Bool, rms: Double, echoActive: Bool? = nil,
        reference: EchoReference? = nil, timestampNanoseconds: UInt64? = nil
    ) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.isSpeech = isSpeech
        self.rms = rms
        self.echoActive = echoActive
        self.reference = reference
        self.timestampNanoseconds = timestampNanoseconds
    }
}

/// Where realtime Talk's microphone audio comes from: the node's echo-cancelled front end; tests
/// feed recorded or synthetic frames.
public protocol RealtimeMicrophone: Sendable {
    /// Frames from now on, until the consumer stops reading (throws when no microphone opens).
    func frames() async throws -> AsyncStream<RealtimeMicFrame>
}

/// One queued chunk of reply audio.
public protocol RealtimePlaybackItem: Sendable {
    /// Returns once the chunk has played, was stopped or was dropped.
    func done() async
    /// Drops the chunk (if queued) or stops it (if playing); later chunks play on.
    func cancel()
}

/// Where realtime Talk's reply audio plays: the node's playback controller (its device choice,
/// unplug fallback and AEC render reference); tests use a clocked fake.
public protocol RealtimeSpeaker: Sendable {
    /// Queues mono `samples` at `sampleRate` behind the chunks already queued.
    func enqueue(_ samples: [Int16], sampleRate: Int) -> any RealtimePlaybackItem
    /// Stops output at once and drops everything queued (and ends a pause).
    func stop()
    /// Pauses output where it is heard (true: silent within about 10 ms, queued chunks wait) or
    /// plays on from there (false).
    func setPaused(_ paused: Bool)
    /// When a pause actually silenced output, monotonic nanoseconds (the clock of
    /// ``RealtimeMicFrame/timestampNanoseconds``); nil while not paused, before the pause took
    /// effect, or when the speaker cannot tell.
    var silentSinceNanoseconds: UInt64? { get }
}
