import Foundation

/// Tuning of ``PlaybackController``; the defaults follow the talk contract (talk.md §7.6) and
/// docs/architecture.md §7.
public struct PlaybackSettings: Sendable, Equatable {
    /// Length of each write in milliseconds (default 10): bounds how long a stop waits for a
    /// blocked write.
    public var chunkMilliseconds: Int
    /// Sound-server buffer (target latency) in milliseconds (default 40).
    public var targetLatencyMilliseconds: Int
    /// Attenuation while ducked, in dB (default 12).
    public var duckDecibels: Double
    /// Playback must start within this time of the audio being ready (default 650 ms).
    public var startTimeout: Duration
    /// Playback must end within the audio's duration plus this (default 2 s).
    public var endSlack: Duration
    /// Cap on the end limit (default 5 min).
    public var maximumDuration: Duration
    /// Close the stream and end the playback thread after this long without items (default 2 s),
    /// so the sink can suspend.
    public var idleTimeout: Duration
    /// Stream name shown by the sound server (`pactl list sink-inputs`).
    public var streamName: String

    /// Creates settings; every value has the documented default.
    public init(
        chunkMilliseconds: Int = 10, targetLatencyMilliseconds: Int = 40, duckDecibels: Double = 12,
        startTimeout: Duration = .milliseconds(650), endSlack: Duration = .seconds(2),
        maximumDuration: Duration = .seconds(300), idleTimeout: Duration = .seconds(2),
        streamName: String = "clawtalk playback"
    ) {
        precondition(chunkMilliseconds > 0 && targetLatencyMilliseconds > 0, "chunk and latency must be positive")
        self.chunkMilliseconds = chunkMilliseconds
        self.targetLatencyMilliseconds = targetLatencyMilliseconds
        self.duckDecibels = duckDecibels
        self.startTimeout = startTimeout
        self.endSlack = endSlack
        self.maximumDuration = maximumDuration
        self.idleTimeout = idleTimeout
        self.streamName = streamName
    }

    /// Linear gain applied while ducked.
    var duckGain: Float { Float(pow(10, -duckDecibels / 20)) }
}
