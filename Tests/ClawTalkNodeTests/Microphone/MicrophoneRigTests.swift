import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

@testable import ClawTalkNode

/// The interim live capture on the headless audio rig: a private null sink's monitor is the
/// microphone, speech (espeak-ng) played into the sink is judged speech frame by frame and comes
/// back from `finish()`.
@Suite(
    "Live utterance capture (audio rig)", .serialized, .audioRig, .timeLimit(.minutes(1)),
    .enabled(if: ProcessInfo.processInfo.environment["CLAWTALK_DEVICE_TESTS"] == "1"))
struct MicrophoneRigTests {
    /// Raw capture with the energy gate, and the `run` path through the echo-cancelling front end.
    @Test(arguments: [false, true])
    func speechIntoTheMicrophoneIsCaptured(throughFrontEnd: Bool) async throws {
        let sink = "ct_ptt_\(UInt32.random(in: 0...999_999))"
        let module = try toolOutput(
            "pactl",
            [
                "load-module", "module-null-sink", "sink_name=\(sink)", "rate=16000", "channels=1",
                "sink_properties=device.description=\(sink)",
            ]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        defer { try? runTool("pactl", ["unload-module", module]) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ct-ptt-rig-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clip = directory + "/speech.wav"
        try runTool("espeak-ng", ["-w", clip, "turn on the kitchen lights please"])

        var mic = MicSettings()
        mic.device = sink + ".monitor"
        let frontEnd = throughFrontEnd ? try AudioFrontEnd(settings: FrontEndSettings()) : nil
        defer { frontEnd?.stop() }
        let capturing = Microphone(mic: mic, frontEnd: frontEnd, logger: .discarding)
        defer { capturing.stop() }
        let capture = try await capturing.begin()
        let player = Task.detached { try runTool("paplay", ["-d", sink, clip]) }
        var speechFrames = 0
        let deadline = ContinuousClock.now + .seconds(30)
        for await frame in capture.frames {
            if frame.isSpeech { speechFrames += 1 }
            if speechFrames >= 20 || ContinuousClock.now > deadline { break }
        }
        _ = try await player.value
        let audio = await capture.finish()
        #expect(speechFrames >= 20, "speech detection hears the words (front end: \(throughFrontEnd))")
        #expect(audio.format == .speech)
        #expect(audio.duration >= 0.5)
        let loud = audio.samples.withUnsafeBufferPointer { EnergyGate.rms($0) }
        #expect(loud > 0.01)

        let second = try await capturing.begin()
        await second.cancel()
        let ended = await second.finish()
        #expect(ended.samples.isEmpty, "a cancelled capture keeps nothing")
    }
}
