/// A snapshot of a ``CaptureEngine``'s counters and state, for a periodic stats log line.
public struct CaptureStats: Sendable, Equatable, CustomStringConvertible {
    /// Frames read from devices since start.
    public var frames: Int
    /// Frames dropped because the ring was full (the consumer lagged ~1 s behind).
    public var overruns: Int
    /// Frames dropped by subscribers' streams (a subscriber lagged more than its buffer).
    public var streamDrops: Int
    /// Reads that failed (device unplugged, stream killed, server gone).
    public var readErrors: Int
    /// Attempts to open a source that failed.
    public var openFailures: Int
    /// Streams opened after the first one (fallbacks, returns to the chosen source, recoveries).
    public var reopenCount: Int
    /// The source being captured: the chosen source's name, or nil for the server's default.
    public var currentDevice: String?
    /// The engine's state.
    public var state: CaptureState
    /// RMS of the latest frame, full scale 1.0.
    public var rms: Double
    /// Peak magnitude of the latest frame, full scale 1.0.
    public var peak: Double

    /// Creates a snapshot.
    public init(
        frames: Int = 0, overruns: Int = 0, streamDrops: Int = 0, readErrors: Int = 0, openFailures: Int = 0,
        reopenCount: Int = 0, currentDevice: String? = nil, state: CaptureState = .idle, rms: Double = 0,
        peak: Double = 0
    ) {
        self.frames = frames
        self.overruns = overruns
        self.streamDrops = streamDrops
        self.readErrors = readErrors
        self.openFailures = openFailures
        self.reopenCount = reopenCount
        self.currentDevice = currentDevice
        self.state = state
        self.rms = rms
        self.peak = peak
    }

    /// One line of `key=value` pairs.
    public var description: String {
        "frames=\(frames) overruns=\(overruns) streamDrops=\(streamDrops) readErrors=\(readErrors) "
            + "openFailures=\(openFailures) reopens=\(reopenCount) device=\(currentDevice ?? "(default)") "
            + "state=\"\(state)\""
    }
}
