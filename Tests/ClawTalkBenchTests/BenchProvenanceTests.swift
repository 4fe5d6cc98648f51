import ClawTalkDevices
import Foundation
import Testing

@testable import ClawTalkBench

/// What a bench report says about itself: the binary's commit, and the Talk onset rule the
/// barge-in metrics run.
@Suite struct BenchProvenanceTests {
    /// Runs git in `directory`.
    static func git(_ arguments: [String], in directory: String) throws {
        _ = try BenchTool.run(
            "git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid"] + arguments, directory: directory)
    }

    @Test func theCommitIsTheBinarysCheckoutNotTheWorkingDirectorys() throws {
        let repo = FileManager.default.temporaryDirectory.appendingPathComponent("bench-commit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: repo) }
        let build = repo.appendingPathComponent(".build/release")
        try FileManager.default.createDirectory(at: build, withIntermediateDirectories: true)
        try Self.git(["init", "-q"], in: repo.path)
        try "one\n".write(to: repo.appendingPathComponent("file.txt"), atomically: true, encoding: .utf8)
        try Self.git(["add", "file.txt"], in: repo.path)
        try Self.git(["commit", "-q", "-m", "one"], in: repo.path)
        let head = try BenchTool.run("git", ["rev-parse", "HEAD"], directory: repo.path)
        let binary = build.appendingPathComponent("clawtalk").path
        _ = FileManager.default.createFile(atPath: binary, contents: Data())

        #expect(BenchTool.repository(containing: URL(fileURLWithPath: binary)) == repo.path)
        #expect(BenchTool.commit(executable: binary) == head)
        try "two\n".write(to: repo.appendingPathComponent("file.txt"), atomically: true, encoding: .utf8)
        #expect(BenchTool.commit(executable: binary) == head + "+dirty")
        #expect(BenchTool.repository(containing: URL(fileURLWithPath: "/usr/bin/env")) == nil)
    }

    /// A 20 ms frame at `rms` (the samples are not read by the onset rule).
    static func frame(speech: Bool, rms: Double) -> FrontEndFrame {
        let samples = [Int16](repeating: 0, count: 320)
        return FrontEndFrame(
            aec: samples, clean: samples, timestampNanoseconds: 0, sequence: 0, isSpeech: speech, rms: rms,
            noiseFloor: 0.001, energyGateSpeech: speech, echoActive: true)
    }

    @Test func theTalkOnsetRuleIgnoresTheHoldOffAndEchoAndTakesAVoice() {
        let monitor = TalkOnsetMonitor()
        var onsets = 0
        func feed(_ seconds: Double, speech: Bool, rms: Double) {
            for _ in 0..<Int((seconds / 0.02).rounded()) where monitor.feed(Self.frame(speech: speech, rms: rms)) {
                onsets += 1
            }
        }
        feed(0.5, speech: true, rms: 0.2)
        #expect(onsets == 0, "the first 0.5 s of a reply (the canceller converging) never start an onset")
        for _ in 0..<10 {
            feed(0.3, speech: true, rms: 0.01)
            feed(0.2, speech: false, rms: 0.003)
        }
        #expect(onsets == 0, "residual echo words")
        feed(0.3, speech: true, rms: 0.08)
        #expect(onsets == 1, "a voice well above the echo")
        feed(1.5, speech: false, rms: 0.003)
        feed(0.3, speech: true, rms: 0.08)
        #expect(onsets == 2, "the check was answered as echo: the next voice starts another onset")
    }

    @Test func theTalkOnsetRuleHoldsBackABurstThatTheEchoExplains() {
        // As the microphone owner hands frames to Talk mode: with the raw input's level and the
        // far end's, the double-talk test learns the echo path (gain 0.5) on echo alone and holds
        // back a loud run that this echo explains; the level rule alone would pause for it.
        let monitor = TalkOnsetMonitor()
        var onsets = 0
        func feed(_ seconds: Double, speech: Bool, rms: Double, input: Double) {
            let samples = [Int16](repeating: 0, count: 320)
            let frame = FrontEndFrame(
                aec: samples, clean: samples, timestampNanoseconds: 0, sequence: 0, isSpeech: speech, rms: rms,
                noiseFloor: 0.001, energyGateSpeech: speech, echoActive: true, inputRMS: input, farEndRMS: 0.1)
            for _ in 0..<Int((seconds / 0.02).rounded()) where monitor.feed(frame) { onsets += 1 }
        }
        feed(0.5, speech: false, rms: 0.008, input: 0.05)
        feed(2, speech: false, rms: 0.008, input: 0.05)
        feed(0.2, speech: true, rms: 0.3, input: 0.05)
        #expect(onsets == 0, "a burst of echo the canceller let through, no louder than the echo path brings")
        #expect(monitor.heldBack == 1)
        feed(0.5, speech: false, rms: 0.008, input: 0.05)
        feed(0.06, speech: true, rms: 0.1, input: 0.11)
        #expect(onsets == 1, "a voice over the echo")
    }

    @Test func aLongExposureIsPlayedAsClipsUnderThePlayersLimit() {
        let samples = (0..<(16_000 * 10 + 5)).map { Int16(truncatingIfNeeded: $0) }
        let clips = LoopbackBench.clips(samples, seconds: 4)
        #expect(clips.map(\.count) == [64_000, 64_000, 32_005])
        #expect(Array(clips.joined()) == samples, "nothing lost or repeated")
        #expect(
            Duration.milliseconds(Int(LoopbackBench.exposureClipSeconds * 1000)) < PlaybackSettings().maximumDuration,
            "the player stops a longer clip")
        #expect(LoopbackBench.clips([], seconds: 4).isEmpty)
    }
}
