public import ClawTalkAudio
public import ClawTalkDevices
public import ClawTalkTalk

/// The talk features' ``AudioOutput`` over the node's one ``PlaybackController`` (speech items;
/// the controller's watchdog and fast stop apply).
public struct PlaybackAudioOutput: AudioOutput {
    /// The controller that owns the sink.
    public let controller: PlaybackController

    /// Plays through `controller`.
    public init(controller: PlaybackController) {
        self.controller = controller
    }

    /// Plays a stream of speech buffers through the controller.
    public func play(_ buffers: AsyncThrowingStream<PCMBuffer, any Error>, format: AudioFormat) async -> AudioPlayback {
        Self.playback(await controller.play(.stream(buffers, format: format, kind: .speech)))
    }

    /// Plays one speech buffer through the controller.
    public func play(_ buffer: PCMBuffer) async -> AudioPlayback {
        Self.playback(await controller.play(.pcm(buffer, kind: .speech)))
    }

    /// Stops the speech playing now (the controller's fast stop).
    public func stop() {
        controller.stop()
    }

    /// Plays the built-in error earcon (talk.md §7.5.3) at the speech rate.
    public func playErrorEarcon() async {
        _ = await controller.play(.pcm(Chime.error.render(sampleRate: 24_000), kind: .chime))
    }

    /// The controller's outcome in the seam's terms; a missing sound server reads
    /// `no sound server: …`.
    public static func playback(_ outcome: PlaybackOutcome) -> AudioPlayback {
        switch outcome {
        case .finished(let seconds, _):
            return AudioPlayback(playedSeconds: seconds)
        case .interrupted(let seconds, _):
            return AudioPlayback(playedSeconds: seconds, interrupted: true)
        case .cancelled:
            return AudioPlayback(playedSeconds: 0, interrupted: true)
        case .failed(let error, let timing):
            if case AudioDeviceError.serverUnavailable(let reason) = error {
                return AudioPlayback(playedSeconds: timing.writtenSeconds, error: "no sound server: \(reason)")
            }
            return AudioPlayback(playedSeconds: timing.writtenSeconds, error: "\(error)")
        }
    }
}
