public import ClawTalkAudio

/// Where spoken replies are played: the live implementation adapts the node's playback
/// controller (in the composition root), tests record what they were asked to play. Talk flows
/// know audio only through this seam.
public protocol AudioOutput: Sendable {
    /// Plays buffers as they arrive, all in `format`, until the stream ends; returns how it ended.
    func play(_ buffers: AsyncThrowingStream<PCMBuffer, any Error>, format: AudioFormat) async -> AudioPlayback
    /// Plays one whole buffer; returns how it ended.
    func play(_ buffer: PCMBuffer) async -> AudioPlayback
    /// Stops what is playing at once (the pending `play` calls return `interrupted`).
    func stop()
}

extension AudioOutput {
    /// Plays one buffer as a one-element stream.
    public func play(_ buffer: PCMBuffer) async -> AudioPlayback {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: PCMBuffer.self)
        continuation.yield(buffer)
        continuation.finish()
        return await play(stream, format: buffer.format)
    }
}

/// How one ``AudioOutput`` item ended.
public struct AudioPlayback: Sendable, Equatable {
    /// Seconds heard: the whole item, or up to the interruption.
    public var playedSeconds: Double
    /// Stopped by ``AudioOutput/stop()`` before the end.
    public var interrupted: Bool
    /// Why playback failed (device, watchdog), one line; nil when it did not.
    public var error: String?

    /// An outcome with the given values.
    public init(playedSeconds: Double, interrupted: Bool = false, error: String? = nil) {
        self.playedSeconds = playedSeconds
        self.interrupted = interrupted
        self.error = error
    }
}
