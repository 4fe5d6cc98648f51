import ClawTalkAudio
import ClawTalkDevices
import ClawTalkNode
import ClawTalkSupport
import ClawTalkTalk
import Synchronization

/// The speech output seam over the node's playback controller, like ``PlaybackAudioOutput``,
/// keeping each item's ``PlaybackTiming`` (playback.firstWrite / lastWrite) for the bench.
final class TimingAudioOutput: AudioOutput {
    let controller: PlaybackController
    /// Timings of the finished items, in order.
    let timings = Mutex<[PlaybackTiming]>([])

    init(controller: PlaybackController) {
        self.controller = controller
    }

    func play(_ buffers: AsyncThrowingStream<PCMBuffer, any Error>, format: AudioFormat) async -> AudioPlayback {
        record(await controller.play(.stream(buffers, format: format, kind: .speech)))
    }

    func play(_ buffer: PCMBuffer) async -> AudioPlayback {
        record(await controller.play(.pcm(buffer, kind: .speech)))
    }

    func stop() {
        controller.stop()
    }

    private func record(_ outcome: PlaybackOutcome) -> AudioPlayback {
        if let timing = outcome.timing { timings.locked { $0.append(timing) } }
        return PlaybackAudioOutput.playback(outcome)
    }
}
