import ClawTalkGateway
import ClawTalkSpeech
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

/// Issue 13's promise on the audio rig, with what scripts/setup installed: `clawtalk run` on its
/// defaults starts its own Whisper server and keyword scorer (`clawtalk-wake`, Whisper tiny.en),
/// a spoken "computer, what time is it" wakes it through the scorer (not PocketSphinx), and the
/// command without the trigger reaches the gateway once for each time it is said; after SIGTERM neither server remains.
@Suite(
    "Keyword scorer wakes run (audio rig)", .serialized, .audioRig, .timeLimit(.minutes(5)),
    .needsAudioRig,
    .enabled(
        if: XDGPathsForTests.installedWhisper != nil && XDGPathsForTests.installedWakeScorer,
        "needs the Whisper server and clawtalk-wake of scripts/setup"))
struct KeywordScorerWakeRigTests {
    @Test func spokenTriggerWakesRunThroughTheScorerAndTheCommandIsSentOnce() async throws {
        let installed = try #require(XDGPathsForTests.installedWhisper)
        var home = try TemporaryHome()
        // No address configured: run starts its own servers on sockets in the private runtime
        // directory; nothing of the user's answers there.
        home.sttPort = nil
        home.wakeScorerPort = nil
        defer { home.remove() }
        try home.linkInstalledServers(from: installed)
        let directory = try TempDirectory(prefix: "scorer-wake")
        let clip = try SpokenClip.wav(
            #"computer <break time="800ms"/> what time is it"#, padBefore: 0.5, padAfter: 0.5, in: directory)
        let next = try SpokenClip.wav(
            #"computer <break time="800ms"/> turn on the lights"#, padBefore: 0.5, padAfter: 0.5, name: "next.wav",
            in: directory)
        let (gateway, environment) = try await EndToEnd.nodeOnlyGateway(for: home)
        defer { Task { await gateway.stopListening() } }
        let run = try RunningBinary(["run", "--log-sensitive"], environment: environment)
        defer { run.kill() }
        _ = try await EndToEnd.connected(gateway)
        #expect(await run.waitForOutput("wake.started", timeout: .seconds(60)), "\(run.stderr)")
        #expect(await run.waitForOutput("wake.scorer.connected", timeout: .seconds(120)), "\(run.stderr)")
        #expect(await run.waitForOutput("stt.server.ready", timeout: .seconds(120)), "\(run.stderr)")

        try runTool("paplay", ["-d", "vspk", clip])
        _ = await eventually(within: .seconds(60), every: .milliseconds(100)) {
            await !VoiceWakeEndToEndTests.commands(gateway).isEmpty
        }
        // Once: a second command is the barrier. The wake pipeline judges audio in order, so a
        // late duplicate of the first would have come before it.
        try runTool("paplay", ["-d", "vspk", next])
        _ = await eventually(within: .seconds(60), every: .milliseconds(100)) {
            await VoiceWakeEndToEndTests.commands(gateway).count >= 2
        }
        let sends = await VoiceWakeEndToEndTests.commands(gateway)
        #expect(sends.count == 2, "\(sends)\n\(run.stderr)")
        let message = try #require(sends.first?.text, "\(run.stderr)").lowercased()
        let words = VoiceWakeEndToEndTests.words(message)
        #expect(!words.isDisjoint(with: ["what", "time", "is", "it"]), "\(message)")
        #expect(!message.contains("computer"), "\(message)")
        let second = try #require(sends.last?.text, "\(run.stderr)").lowercased()
        #expect(!VoiceWakeEndToEndTests.words(second).isDisjoint(with: ["turn", "on", "the", "lights"]), "\(second)")
        #expect(VoiceWakeEndToEndTests.words(second).isDisjoint(with: ["what", "time"]), "a duplicate: \(second)")
        let accepted = run.stderr.split(separator: "\n").filter { $0.contains("wake.accepted") }
        #expect(accepted.count == 2 && accepted.allSatisfy { $0.contains("engine=whisper") }, "\(run.stderr)")
        print(run.stderr.split(separator: "\n").filter { $0.contains("wake.") }.joined(separator: "\n"))
        let status = try #require(EndToEnd.status(home), "\(run.stderr)")
        // clawtalk-speech scores wake words too: the scorer is the speech server's process.
        let server =
            (status["wakeScorer"] as? [String: Any])?["pid"] ?? (status["speechServer"] as? [String: Any])?["pid"]
        let pid = try #require(server as? Int, "\(status)")

        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
        #expect(await SpeechServerSupervisionTests.gone(Int32(pid)), "the scorer's server outlived the service")
    }
}

extension XDGPathsForTests {
    /// Whether scripts/setup installed clawtalk-wake and the tiny.en model for this user.
    static var installedWakeScorer: Bool {
        FileManager.default.isExecutableFile(atPath: dataHome + "/clawtalk/venv/bin/clawtalk-wake")
            && FileManager.default.fileExists(atPath: dataHome + "/clawtalk/models/whisper-tiny-en/model.bin")
    }
}
