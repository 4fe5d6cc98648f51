public import ClawTalkSupport

/// A snapshot of an ``AudioFrontEnd``'s counters, for a periodic stats log line.
public struct FrontEndStats: Sendable, Equatable, CustomStringConvertible {
    /// Capture frames processed.
    public var frames: Int
    /// Capture frames that could not be processed (wrong length, library error).
    public var errors: Int
    /// Far-end (10 ms) frames accepted from the render tap.
    public var farEndFrames: Int
    /// Far-end frames the tap had to drop (buffer full or a concurrent write).
    public var farEndDropped: Int
    /// Far-end frames fed to the echo canceller.
    public var farEndFed: Int
    /// Silent 10 ms frames fed while the far end was idle.
    public var silenceFed: Int
    /// Far-end frames discarded as too old to align with the capture.
    public var farEndStale: Int
    /// Front-end frames dropped by slow ``AudioFrontEnd/frames()`` subscribers.
    public var streamDrops: Int
    /// The echo delay last handed to the canceller, in milliseconds.
    public var echoDelayMilliseconds: Int
    /// Capture frames that skipped the echo stage because the front end was idle.
    public var idleBypassFrames: Int

    /// Creates a snapshot.
    public init(
        frames: Int = 0, errors: Int = 0, farEndFrames: Int = 0, farEndDropped: Int = 0, farEndFed: Int = 0,
        silenceFed: Int = 0, farEndStale: Int = 0, streamDrops: Int = 0, echoDelayMilliseconds: Int = 0,
        idleBypassFrames: Int = 0
    ) {
        self.frames = frames
        self.errors = errors
        self.farEndFrames = farEndFrames
        self.farEndDropped = farEndDropped
        self.farEndFed = farEndFed
        self.silenceFed = silenceFed
        self.farEndStale = farEndStale
        self.streamDrops = streamDrops
        self.echoDelayMilliseconds = echoDelayMilliseconds
        self.idleBypassFrames = idleBypassFrames
    }

    /// The counters as log fields (`frontend.stats`).
    public var fields: [String: LogValue] {
        [
            "frames": .int(frames), "errors": .int(errors), "farEnd": .int(farEndFrames),
            "farEndDropped": .int(farEndDropped), "farEndFed": .int(farEndFed), "silenceFed": .int(silenceFed),
            "farEndStale": .int(farEndStale), "streamDrops": .int(streamDrops),
            "echoDelayMs": .int(echoDelayMilliseconds), "idleBypass": .int(idleBypassFrames),
        ]
    }

    /// One line: `frames=… errors=… farEnd=…/dropped … delay=… ms`.
    public var description: String {
        "frames=\(frames) errors=\(errors) farEnd=\(farEndFrames) farEndDropped=\(farEndDropped) "
            + "farEndFed=\(farEndFed) silenceFed=\(silenceFed) farEndStale=\(farEndStale) "
            + "streamDrops=\(streamDrops) echoDelay=\(echoDelayMilliseconds)ms idleBypass=\(idleBypassFrames)"
    }
}
