/// Playback device (`speaker.*`).
public struct SpeakerSettings: Sendable, Equatable {
    /// PulseAudio/PipeWire sink name. Default nil: the server's default sink.
    public var device: String? = nil
    /// The output cannot reach the microphone (headphones), so barge-in works without echo
    /// cancellation. Default false.
    public var acousticallyIsolated = false

    /// Creates the defaults.
    public init() {}
}
