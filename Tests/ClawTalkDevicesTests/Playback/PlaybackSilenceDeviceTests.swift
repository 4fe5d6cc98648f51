import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTestTraits
import Foundation
import Testing

/// When a pause actually silenced playback (``PlaybackController/silentSinceNanoseconds``), on
/// the capture clock: Talk mode's double-talk settle counts from it.
@Suite(
    "PlaybackController silence stamp (rig)", .serialized, .audioRig, .timeLimit(.minutes(1)),
    .needsAudioRig,
    .privatePlaybackSink)
struct PlaybackSilenceDeviceTests {
    @Test("idle: a pause is silent at once; a resume clears the stamp")
    func idlePauseIsSilentAtOnce() {
        let controller = PlaybackController()
        #expect(controller.silentSinceNanoseconds == nil)
        let before = MonotonicTime.nanoseconds()
        controller.setPaused(true)
        let stamp = controller.silentSinceNanoseconds
        #expect(stamp.map { $0 >= before } == true, "\(String(describing: stamp))")
        controller.setPaused(false)
        #expect(controller.silentSinceNanoseconds == nil)
    }

    @Test("playing: the stamp appears once the stream is flushed, after the call, and the item still finishes")
    func playingPauseIsStampedWhenFlushed() async throws {
        let sink = try #require(PlaybackTestSink.current)
        let controller = PlaybackController(sink: sink.name)
        let handle = controller.enqueue(.pcm(toneBuffer(1000, seconds: 1), kind: .speech))
        try await Task.sleep(for: .milliseconds(400))
        let before = MonotonicTime.nanoseconds()
        controller.setPaused(true)
        var stamp: UInt64?
        for _ in 0..<100 where stamp == nil {
            stamp = controller.silentSinceNanoseconds
            if stamp == nil { try await Task.sleep(for: .milliseconds(5)) }
        }
        let found = try #require(stamp, "the pause never took effect")
        #expect(found >= before)
        #expect(found - before < 300_000_000, "took \(Double(found - before) / 1e6) ms")
        controller.setPaused(false)
        #expect(controller.silentSinceNanoseconds == nil)
        guard case .finished = await handle.outcome() else { throw RigError(description: "not finished") }
    }
}
