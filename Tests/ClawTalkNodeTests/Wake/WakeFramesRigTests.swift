import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTestTraits
import Foundation
import Testing

@testable import ClawTalkNode

/// Voice wake's frames from the live capture on the audio rig (talk.md §6.5): without echo
/// cancellation the frames that may hold the node's own playback (a chime) are silence (the front
/// end's half-duplex gate) and flagged `muted` (the controller's own guard); with it, the capture
/// runs on unmuted and the chime's echo is left to the echo canceller.
@Suite(
    "Voice wake frames (audio rig)", .serialized, .audioRig, .timeLimit(.minutes(1)),
    .needsAudioRig)
struct WakeFramesRigTests {
    @Test(arguments: [false, true])
    func ownPlaybackIsMutedOnlyWithoutEchoCancellation(echoCancellation: Bool) async throws {
        var settings = FrontEndSettings()
        if !echoCancellation { settings.stages.echoCancellation = .off }
        let frontEnd = try AudioFrontEnd(settings: settings)
        defer { frontEnd.stop() }
        #expect(frontEnd.echoControlled == echoCancellation)
        let playback = PlaybackController(sink: "vspk", renderTap: frontEnd.renderTap)
        frontEnd.attach(playback)
        defer { playback.close() }
        let capturing = Microphone(mic: MicSettings(), frontEnd: frontEnd, logger: .discarding)
        defer { capturing.stop() }
        let frames = try await capturing.wakeFrames()
        let chime = Chime.trigger.render(sampleRate: 24_000)
        let player = Task {
            try? await Task.sleep(for: .milliseconds(300))
            _ = await playback.play(.pcm(chime, kind: .chime))
        }
        var muted = 0
        var loud = 0
        var count = 0
        var chimeAt: Int?
        for await frame in frames {
            count += 1
            if frame.muted { muted += 1 }
            if frame.wake.withUnsafeBufferPointer({ EnergyGate.rms($0) }) > 0.01 { loud += 1 }
            if chimeAt == nil, frontEnd.stats.farEndFrames > 0 { chimeAt = count }
            // 3 s, and at least 1 s past the chime's start (a busy machine may play it late); 30 s at most.
            if count >= 150, let chimeAt, count >= chimeAt + 50 { break }
            if count >= 1500 { break }
        }
        await player.value
        #expect(frontEnd.stats.farEndFrames > 0, "the chime was played through the render tap")
        if echoCancellation {
            // The capture runs on; the chime's echo is the canceller's (often below 0.01 RMS).
            #expect(muted == 0)
        } else {
            #expect(loud == 0, "the chime's interval is silence")
            // The chime (120 ms) and the echo tail (300 ms) at least.
            #expect(muted >= 6, "muted \(muted) of \(count)")
            #expect(muted < count, "the silence before the chime is not muted")
        }
    }
}
