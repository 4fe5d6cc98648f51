/// Capture device (`mic.*`).
public struct MicSettings: Sendable, Equatable {
    /// PulseAudio/PipeWire source name. Default nil: the server's default source.
    public var device: String? = nil
    /// Audio kept before a wake or PTT start, in milliseconds. Default 300.
    public var preRollMs = 300
    /// Capture frame length, in milliseconds (a multiple of 10). Default 20.
    public var frameMs = 20

    /// Creates the defaults.
    public init() {}

    /// ``preRollMs`` as a duration.
    public var preRoll: Duration { .milliseconds(preRollMs) }
    /// ``frameMs`` as a duration.
    public var frame: Duration { .milliseconds(frameMs) }
}
