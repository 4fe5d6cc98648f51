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
        let home = try Self.homeWithOwnServers()
        defer { home.remove() }
        let directory = try TempDirectory(prefix: "scorer-wake")
        let clip = try SpokenClip.wav(
            #"computer <break time="800ms"/> what time is it"#, padBefore: 0.5, padAfter: 0.5, in: directory)
        // As in the brand-trigger test: the second command starts 1.5 s after the node's spoken
        // reply to the first (waited for below), out of the echo window where a hit must score
        // 10 × its threshold.
        let next = try SpokenClip.wav(
            #"computer <break time="800ms"/> turn on the lights"#, padBefore: 1.5, padAfter: 0.5, name: "next.wav",
            in: directory)
        let (gateway, run) = try await Self.startRun(in: home)
        defer {
            run.kill()
            Task { await gateway.stopListening() }
        }

        try runTool("paplay", ["-d", "vspk", clip])
        _ = await eventually(within: .seconds(60), every: .milliseconds(100)) {
            await !VoiceWakeEndToEndTests.commands(gateway).isEmpty
        }
        // Once: a second command is the barrier. The wake pipeline judges audio in order, so a
        // late duplicate of the first would have come before it.
        #expect(await run.waitForOutput("tts.spoken", timeout: .seconds(60)), "\(run.stderr)")
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

    /// Issue 33's promise on the rig: the gateway's brand triggers after a lead-in ("Hey Open
    /// Claw", "Okay Claude"), each in an espeak-ng voice that neither the development voices nor
    /// the heads' training had, wake `run`, and only the command reaches the gateway.
    @Test func brandTriggersAfterALeadInWakeRunAndOnlyTheCommandIsSent() async throws {
        let home = try Self.homeWithOwnServers()
        defer { home.remove() }
        let directory = try TempDirectory(prefix: "brand-wake")
        let openclaw = try SpokenClip.wav(
            #"Hey Open Claw, <break time="600ms"/> what time is it"#, voice: "en-us+klatt3", padBefore: 0.5,
            padAfter: 0.5, name: "openclaw.wav", in: directory)
        // 1.5 s of silence first: a hit within a second of the node's own reply to the first
        // command must score 10 × its threshold (weak-over-echo), and that reply ends just before.
        let claude = try SpokenClip.wav(
            #"Okay Claude, <break time="600ms"/> turn on the lights"#, voice: "en-gb-x-rp+f3", padBefore: 1.5,
            padAfter: 0.5, name: "claude.wav", in: directory)
        let (gateway, run) = try await Self.startRun(in: home)
        defer {
            run.kill()
            Task { await gateway.stopListening() }
        }

        try runTool("paplay", ["-d", "vspk", openclaw])
        _ = await eventually(within: .seconds(60), every: .milliseconds(100)) {
            await !VoiceWakeEndToEndTests.commands(gateway).isEmpty
        }
        #expect(await run.waitForOutput("tts.spoken", timeout: .seconds(60)), "\(run.stderr)")
        try runTool("paplay", ["-d", "vspk", claude])
        _ = await eventually(within: .seconds(60), every: .milliseconds(100)) {
            await VoiceWakeEndToEndTests.commands(gateway).count >= 2
        }
        let sends = await VoiceWakeEndToEndTests.commands(gateway).map { $0.text.lowercased() }
        #expect(sends.count == 2, "\(sends)\n\(run.stderr)")
        let first = VoiceWakeEndToEndTests.words(sends.first ?? "")
        let second = VoiceWakeEndToEndTests.words(sends.last ?? "")
        // A command, without its trigger. Its words are not checked: tiny.en writes this voice's
        // "what time is it" differently from run to run ("That's how it is.", "s let dive a bit"),
        // and that is the transcriber, not the wake (one run in six failed on it).
        #expect(!first.isEmpty && !second.isEmpty, "\(sends)")
        #expect(first.isDisjoint(with: ["hey", "open", "claw", "openclaw"]), "the trigger was sent: \(sends)")
        #expect(second.isDisjoint(with: ["okay", "ok", "claude"]), "the trigger was sent: \(sends)")
        let accepted = run.stderr.split(separator: "\n").filter { $0.contains("wake.accepted") }
        #expect(
            accepted.count == 2 && accepted.first?.contains("openclaw") == true
                && accepted.last?.contains("claude") == true, "\(run.stderr)")
        print(run.stderr.split(separator: "\n").filter { $0.contains("wake.") }.joined(separator: "\n"))
        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
    }

    /// A home with the installed servers linked in and no address configured: run starts its own
    /// servers on sockets in the private runtime directory; nothing of the user's answers there.
    static func homeWithOwnServers() throws -> TemporaryHome {
        let installed = try #require(XDGPathsForTests.installedWhisper)
        var home = try TemporaryHome()
        home.sttPort = nil
        home.wakeScorerPort = nil
        try home.linkInstalledServers(from: installed)
        return home
    }

    /// `clawtalk run` in `home` with a node-only gateway, once its wake pipeline, scorer and
    /// speech server are up.
    static func startRun(in home: TemporaryHome) async throws -> (TestGateway, RunningBinary) {
        let (gateway, environment) = try await EndToEnd.nodeOnlyGateway(for: home)
        let run: RunningBinary
        do {
            run = try RunningBinary(["run", "--log-sensitive"], environment: environment)
            do {
                _ = try await EndToEnd.connected(gateway)
            } catch {
                run.kill()
                throw error
            }
        } catch {
            await gateway.stopListening()
            throw error
        }
        #expect(await run.waitForOutput("wake.started", timeout: .seconds(60)), "\(run.stderr)")
        #expect(await run.waitForOutput("wake.scorer.connected", timeout: .seconds(120)), "\(run.stderr)")
        #expect(await run.waitForOutput("stt.server.ready", timeout: .seconds(120)), "\(run.stderr)")
        return (gateway, run)
    }
}

extension XDGPathsForTests {
    /// Whether scripts/setup installed clawtalk-wake and the tiny.en model for this user.
    static var installedWakeScorer: Bool {
        FileManager.default.isExecutableFile(atPath: dataHome + "/clawtalk/venv/bin/clawtalk-wake")
            && FileManager.default.fileExists(atPath: dataHome + "/clawtalk/models/whisper-tiny-en/model.bin")
    }
}
