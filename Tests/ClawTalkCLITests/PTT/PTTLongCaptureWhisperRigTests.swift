import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

/// Issue 14's doubled sentence, on the audio rig with the real installed Whisper: a push-to-talk
/// capture held open well past Whisper's 30 s window after one sentence came back as "Play some
/// quiet music while I work.  Play some quiet music while I work." — Whisper repeated the text
/// into the silent second window. The node now sends the speech without the long silence, so the
/// sentence comes back once.
///
/// On a private audio rig (``PrivateAudioRig``), not the shared one: the capture holds its
/// microphone for 36 s, which no other test may play into; on a rig of its own it needs no
/// `.audioRig` turn, and runs beside the shared rig's tests in a parallel run.
@Suite(
    "A long capture is transcribed once (private audio rig, Whisper)", .serialized, .timeLimit(.minutes(5)),
    .needsAudioRig,
    .enabled(
        if: XDGPathsForTests.installedWhisper != nil,
        "needs the Whisper server of scripts/setup"))
struct PTTLongCaptureWhisperRigTests {
    @Test func aSentenceFollowedByLongSilenceComesBackOnce() async throws {
        let installed = try #require(XDGPathsForTests.installedWhisper)
        let rig = try await PrivateAudioRig.start()
        defer { rig.stop() }
        var home = try TemporaryHome()
        home.sttPort = nil  // run's own server on its private socket
        defer { home.remove() }
        try home.linkInstalledServers(from: installed)
        let directory = try TempDirectory(prefix: "ptt-long")
        let clip = try SpokenClip.wav(
            "play some quiet music while i work", padBefore: 0.5, padAfter: 0.5, in: directory)
        let (gateway, nodeEnvironment) = try await EndToEnd.nodeOnlyGateway(for: home)
        defer { Task { await gateway.stopListening() } }
        var environment = nodeEnvironment
        environment["CLAWTALK_WAKE_ENABLED"] = "false"
        environment.merge(rig.environment) { _, new in new }
        let run = try RunningBinary(["run", "--log-sensitive"], environment: environment)
        defer { run.kill() }
        _ = try await EndToEnd.connected(gateway)
        #expect(await run.waitForOutput("stt.server.ready", timeout: .seconds(120)), "\(run.stderr)")

        // A local capture (its controller stays), the sentence, then silence past 30 s.
        let start = try await ClawTalkBinary.run(["ptt", "start"], environment: environment)
        #expect(start.output.hasPrefix("started "), "\(start.output)\(start.error)\n\(run.stderr)")
        try runTool("paplay", ["-s", rig.server, "-d", "vspk", clip])
        try await Task.sleep(for: .seconds(36))
        let stop = try await ClawTalkBinary.run(["ptt", "stop", "--json"], environment: environment)
        let answer = try #require(
            try JSONSerialization.jsonObject(with: Data(stop.output.utf8)) as? [String: Any], "\(stop.error)")
        guard let transcript = answer["transcript"] as? String else {
            // Whisper did not answer within the node's 10 s limit (a loaded machine): this run
            // cannot tell once from twice. Reported as a known issue, never counted as a pass.
            #expect(run.stderr.contains("ptt.transcribe.timeout"), "\(answer)\n\(run.stderr)")
            withKnownIssue("inconclusive: Whisper took longer than the node's transcription limit") {
                Issue.record("no transcript to count the sentence in: \(answer)")
            }
            return
        }
        #expect(run.stderr.contains("engine=wyoming"), "\(run.stderr)")
        // The sentence once, by two of its words: beside the parallel tests Whisper heard "Please,
        // I'm glad to use it while I work." once (a fresh-clone CI run, 2026-12-06); the doubled
        // sentence has each of them twice.
        let text = transcript.lowercased()
        let music = text.components(separatedBy: "music").count - 1
        let work = text.components(separatedBy: "work").count - 1
        let pttLog = run.stderr.split(separator: "\n").filter { $0.contains("ptt.") || $0.contains("capture") }
        #expect(
            music <= 1 && work <= 1 && music + work >= 1,
            "the sentence once: \(transcript)\n\(pttLog.joined(separator: "\n"))")

        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
    }
}
