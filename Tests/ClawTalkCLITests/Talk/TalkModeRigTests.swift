import ClawTalkAudio
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

/// Talk mode end to end on the headless audio rig: the built `clawtalk run` with a real Whisper
/// server, the test gateway on a loopback port, questions spoken by espeak-ng into the rig's
/// speaker `vspk` (whose monitor is the microphone `vmic`), and the node speaking its replies
/// with espeak-ng into the same sink. So the node hears its own replies: the echo path is real,
/// and only the in-process echo canceller keeps it from being taken for the user.
@Suite(
    "Talk mode whole flow (audio rig)", .serialized, .audioRig, .timeLimit(.minutes(6)),
    .needsAudioRig,
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: WyomingServerProcess.Configuration.installed().executable)
            && WyomingServerProcess.Configuration.installed().hasModel,
        "needs the Whisper server (scripts/setup, scripts/fetch-whisper-model)"))
struct TalkModeRigTests {
    /// A child process this test started (stopped by its pid only).
    final class Child: @unchecked Sendable {
        let process = Process()

        init(_ tool: String, _ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        func wait() { process.waitUntilExit() }

        func stop() {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    static func speak(_ text: String, to path: String) throws {
        let child = try Child("espeak-ng", ["-s", "150", "-w", path, text])
        child.wait()
    }

    /// Plays `path` into the rig's speaker (the microphone hears it) and waits for the end, on a
    /// dispatch thread: a test waiting seconds for a player must not hold one of the cooperative
    /// pool's threads (two on a 2-core machine) from the tests running beside it.
    static func play(_ path: String) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let child = try Child("paplay", ["-d", "vspk", path])
                        child.wait()
                    })
            }
        }
    }

    /// Seconds of 20 ms frames louder than −40 dBFS in a raw 16 kHz s16le file.
    static func loudSeconds(_ path: String) -> Double {
        guard let data = FileManager.default.contents(atPath: path) else { return 0 }
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        var loud = 0
        var index = 0
        while index + 320 <= samples.count {
            let frame = samples[index..<(index + 320)]
            let energy = frame.reduce(0.0) { $0 + Double($1) * Double($1) } / 320
            if (energy.squareRoot() / 32768) > 0.01 { loud += 1 }
            index += 320
        }
        return Double(loud) * 0.02
    }

    /// `audioS` of the last `talk.transcribed … what=turn` line of the node's log.
    static func lastTurnAudioSeconds(_ log: String) -> Double {
        let line = log.split(separator: "\n").last { $0.contains("talk.transcribed") && $0.contains("what=turn") }
        let field = line?.split(separator: " ").first { $0.hasPrefix("audioS=") }
        return field.flatMap { Double($0.dropFirst("audioS=".count)) } ?? .infinity
    }

    /// How many `talk.phase` lines of the node's log change to `phase`: a short phase (a 2 s
    /// reply) can pass between two polls of `clawtalk talk status` on a busy machine.
    static func phaseChanges(_ log: String, to phase: String) -> Int {
        log.split(separator: "\n").filter { $0.contains("talk.phase") && $0.contains("to=\(phase)") }.count
    }

    /// The transcripts of Talk turns in the node's log (`talk.transcribed … what=turn`, logged in
    /// clear with `--log-sensitive`).
    static func turnTranscripts(_ log: String) -> [String] {
        log.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("talk.transcribed"), line.hasSuffix("what=turn"),
                let start = line.range(of: "transcript=\""), let end = line.range(of: "\" what=turn")
            else { return nil }
            return String(line[start.upperBound..<end.lowerBound])
        }
    }

    /// `clawtalk talk status` → `on <phase>` or `off`.
    static func talkStatus(_ environment: [String: String]) async throws -> String {
        let result = try await ClawTalkBinary.run(["talk", "status"], environment: environment)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func waitForStatus(
        _ wanted: String, _ environment: [String: String], timeout: Duration = .seconds(60)
    ) async throws -> Bool {
        try await eventually(within: timeout, every: .milliseconds(100)) { try await talkStatus(environment) == wanted }
    }

    static func chatSends(_ gateway: TestGateway) async -> [String] {
        await gateway.observedEvents.compactMap { event in
            if case .operatorCall(_, "chat.send", let params) = event { return params?["message"]?.stringValue }
            return nil
        }
    }

    static func waitForChatSends(_ count: Int, _ gateway: TestGateway, timeout: Duration = .seconds(60)) async
        -> [String]
    {
        _ = await eventually(within: timeout, every: .milliseconds(50)) { await chatSends(gateway).count >= count }
        return await chatSends(gateway)
    }

    /// `clawtalk run` on the rig with a Whisper server and a gateway that answers with `replies`
    /// (one per turn, spoken by the node with espeak-ng).
    final class Node: @unchecked Sendable {
        let whisper: WyomingServerProcess
        let home: TemporaryHome
        let gateway: TestGateway
        let environment: [String: String]
        let run: RunningBinary
        let directory: String

        init(replies: [String], echoCancellation: Bool = true) async throws {
            whisper = try await WyomingServerProcess.start(.installed())
            home = try TemporaryHome()
            let (gateway, url) = try await EndToEnd.gateway { configuration in
                configuration.auth = .token("s3cret")
                configuration.autoApproveLoopback = true
                // No gateway speech: the node speaks with espeak-ng, so its replies are speech too.
                configuration.methods.removeAll { ["talk.speak", "tts.speak"].contains($0) }
            }
            self.gateway = gateway
            for reply in replies { await gateway.enqueueChatRun([.final(reply)]) }
            var environment = home.environment
            environment["CLAWTALK_GATEWAY_URL"] = url
            environment["CLAWTALK_GATEWAY_TOKEN"] = "s3cret"
            environment["CLAWTALK_STT_WYOMING_PORT"] = "\(whisper.address.port ?? 0)"
            environment["CLAWTALK_STT_LANGUAGE"] = "en"
            environment["CLAWTALK_LOG_LEVEL"] = "debug"
            environment["CLAWTALK_LOG_SENSITIVE"] = "true"
            if !echoCancellation { environment["CLAWTALK_PROCESSING_ECHO_CANCELLATION"] = "off" }
            self.environment = environment
            run = try RunningBinary(["run"], environment: environment)
            directory = home.root + "/clips"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            _ = try await EndToEnd.connected(gateway, role: "operator")
        }

        /// A WAV of espeak-ng saying `text`.
        func clip(_ name: String, _ text: String) throws -> String {
            let path = directory + "/\(name).wav"
            try TalkModeRigTests.speak(text, to: path)
            return path
        }

        /// The node's log lines about Talk and speech.
        func printTalkLog() {
            for line in run.stderr.split(separator: "\n")
            where [
                "talk.barge_in", "talk.transcribed", "talk.pause", "talk.check", "talk.onset", "tts.stopped",
                "tts.spoken",
                "talk.phase",
            ]
            .contains(where: line.contains) {
                print("talk rig: \(line)")
            }
        }

        func stop() async {
            run.kill()
            await gateway.stopListening()
            whisper.stop()
            home.remove()
        }
    }

    @Test func aSpokenQuestionIsAnsweredAloudAndSpeechThatIsNotTheEchoBargesIn() async throws {
        let node = try await Node(replies: [
            "Paris is the capital of France.",
            // About 24 s of speech: interrupted 5 s in, it is long enough for a confirmation from
            // Whisper on a busy machine (two slow checks of 3–4.5 s each) to arrive while it plays.
            "Once upon a time there was a small robot who lived in a lighthouse by the sea. "
                + "Every night it counted the ships, and every morning it polished the great lamp. "
                + "In winter the storms came, and the robot sang to the waves until the sun came back. "
                + "The fishermen never saw it, but they always found their way home. "
                + "When spring returned, the robot planted flowers around the lighthouse, and the birds "
                + "came back to sing with it every evening.",
            "Tomorrow will be sunny.",
        ])
        let (gateway, environment, run, directory) = (node.gateway, node.environment, node.run, node.directory)
        let question = try node.clip("question", "What is the capital of France?")
        let story = try node.clip("story", "Tell me a story.")
        let interruption = try node.clip("interruption", "Stop. What is the weather tomorrow?")
        let on = try await ClawTalkBinary.run(["talk", "on"], environment: environment)
        #expect(on.output == "on listening\n", "\(on.error)\n\(run.stderr)")
        try await Task.sleep(for: .milliseconds(500))

        // 1. The question → one chat.send → the reply is spoken → listening again.
        let recording = directory + "/speaker.raw"
        let recorder = try Child(
            "parec", ["-d", "vspk.monitor", "--raw", "--format=s16le", "--rate=16000", "--channels=1", recording])
        defer { recorder.stop() }
        try await Self.play(question)
        let first = await Self.waitForChatSends(1, gateway)
        #expect(first.count == 1, "\(run.stderr)")
        // Whisper hears the question through the rig; the text sent is what it heard.
        #expect(first.first.map { Self.turnTranscripts(run.stderr).contains($0) } == true, "\(first)")
        #expect(
            await run.waitUntil(timeout: .seconds(60)) { Self.phaseChanges(run.stderr, to: "speaking") >= 1 },
            "\(run.stderr)")
        #expect(try await Self.waitForStatus("on listening", environment), "\(run.stderr)")
        // parec receives the monitor in fragments of up to ≈ 2 s: give the reply's end time to
        // arrive before stopping it.
        try await Task.sleep(for: .seconds(3))
        recorder.stop()
        let heard = Self.loudSeconds(recording)
        print("talk rig: the speaker monitor had \(heard) s of sound")
        #expect(heard > 2.5, "the question (≈ 1.5 s) and the spoken reply (≈ 2 s) are on the speaker")

        // 2. A long reply, interrupted by speech that is not its echo. The story is the barrier for
        // the first reply: had the node's own reply started a turn, its text would be the second.
        try await Self.play(story)
        let second = await Self.waitForChatSends(2, gateway)
        #expect(second.count == 2, "\(run.stderr)")
        // Whisper's words for the story's request vary ("Tell me I saw it."); the reply's do not.
        let words = VoiceWakeEndToEndTests.words(second.last ?? "")
        #expect(words.isDisjoint(with: ["paris", "capital", "france"]), "the node's own reply made a turn: \(second)")
        #expect(try await Self.waitForStatus("on speaking", environment), "\(run.stderr)")
        // Interrupt well into the reply (≥ 5 s of its ≈ 24 s), so that a turn taken from an onset
        // in the reply's echo is clearly longer than the interrupting speech (see below).
        try await Task.sleep(for: .seconds(5))
        let interrupted = ContinuousClock.now
        try await Self.play(interruption)
        // Generous: with a core busy a check of 14 s of audio took 21 s and the turn's own
        // transcription 27 s more.
        let third = await Self.waitForChatSends(3, gateway, timeout: .seconds(180))
        let elapsed = interrupted.duration(to: .now)
        let note = third.count >= 3 ? third[2] : ""
        print("talk rig: barge-in turn sent \(elapsed) after the interruption began: \(note)")
        // The third send is the barge-in turn. A fourth may follow it: while the reply still
        // plays, the canceller's double-talk suppression can leave a gap inside the interrupting
        // sentence, and a fast recogniser ends the turn there ("It hasn't stopped." then
        // "tomorrow." was seen on PipeWire); the rest is then a turn of its own, never lost.
        #expect((3...4).contains(third.count), "\(third)\n\(run.stderr)")
        #expect(note.hasPrefix("(The user interrupted your previous spoken reply after "), "\(note)")
        // What follows is the interrupting speech; Whisper base hears it through the canceller's
        // double-talk suppression, so its words vary ("What is the matter tomorrow?", "It's tough.
        // You want to see that way?"): what matters is that the turn sent is the text the node
        // transcribed for the interrupting turn, whatever Whisper made of it.
        let said = note.split(separator: "\n").dropFirst().joined(separator: " ")
        #expect(!said.isEmpty, "\(note)")
        #expect(Self.turnTranscripts(run.stderr).contains(said), "\(note)\n\(run.stderr)")
        // The interruption stopped the reply: kept as the next turn (`talk.barge_in`), or, when the
        // check heard only its first word ("Stop.", a fast check), stopped with the interruption
        // recorded and the words after it captured as a turn of their own.
        #expect(
            run.stderr.contains("talk.barge_in") || run.stderr.contains("talk.speech.stopped interruption=true"),
            "\(run.stderr)")
        // How well the interrupting turn is cut (≈ 3.3 s on a quiet machine: 2.3 s of speech, the
        // lead-in and the pause) depends on how fast Whisper confirms: with one core busy a 0.9 s
        // check took 13 s and the turn ran on with the reply's echo (11.4 s). That is a quality
        // figure for the bench (barge-in, issue 15), not a behaviour this test can hold on a busy
        // machine; it is printed here.
        let turnSeconds = Self.lastTurnAudioSeconds(run.stderr)
        print("talk rig: the interrupting turn had \(turnSeconds) s of audio")

        node.printTalkLog()
        _ = try await ClawTalkBinary.run(["talk", "off"], environment: environment)
        #expect(try await Self.talkStatus(environment) == "off")
        run.send(SIGTERM)
        #expect(await run.waitForExit(timeout: .seconds(30)) == 0)
        await node.stop()
    }

    /// A WAV of the first `seconds` of espeak-ng saying `text`, from its first loud sample, 1.5 times
    /// louder: a burst the voice detector takes for speech that ends before a pause has settled.
    static func burst(_ text: String, seconds: Double, to path: String) throws {
        try speak(text, to: path + ".full.wav")
        let full = try WAVFile.decode(try Data(contentsOf: URL(fileURLWithPath: path + ".full.wav")))
        let start = full.samples.firstIndex { abs(Int($0)) > 3000 } ?? 0
        let count = Int(seconds * Double(full.format.sampleRate))
        let cut = full.samples[start..<min(start + count, full.samples.count)].map {
            Int16(clamping: Int(Double($0) * 1.5))
        }
        try WAVFile.encode(PCMBuffer(format: full.format, samples: cut)).write(to: URL(fileURLWithPath: path))
    }

    /// A false onset: a short sound over the reply (a cough, a door) pauses it at once, and when
    /// the check finds no voice once the reply fell silent, the reply resumes and plays to its end.
    @Test func aShortSoundPausesTheReplyAndTheReplyResumesToItsEnd() async throws {
        let node = try await Node(replies: [
            "Once upon a time there was a small robot who lived in a lighthouse by the sea. "
                + "Every night it counted the ships, and every morning it polished the great lamp. "
                + "In winter the storms came, and the robot sang to the waves until the sun came back."
        ])
        let story = try node.clip("story", "Tell me a story.")
        let sound = node.directory + "/sound.wav"
        try Self.burst("Hey there.", seconds: 0.22, to: sound)
        let on = try await ClawTalkBinary.run(["talk", "on"], environment: node.environment)
        #expect(on.output == "on listening\n", "\(on.error)\n\(node.run.stderr)")
        try await Task.sleep(for: .milliseconds(500))
        try await Self.play(story)
        #expect(await Self.waitForChatSends(1, node.gateway).count == 1, "\(node.run.stderr)")
        #expect(try await Self.waitForStatus("on speaking", node.environment), "\(node.run.stderr)")
        try await Task.sleep(for: .seconds(4))
        // The double-talk test may hold a sound back (safe: no pause at all) when the echo path
        // it learned reads high on a loaded machine; then the sound comes again, at most twice,
        // while the reply still plays.
        for _ in 0..<3 {
            try await Self.play(sound)
            try await Task.sleep(for: .milliseconds(1500))
            let paused = node.run.stderr.split(separator: "\n").contains {
                $0.contains("talk.pause") && $0.split(separator: " ").contains("on=true")
            }
            if paused { break }
        }
        // The reply (≈ 15 s) plays to its end, however slow the check is on a busy machine.
        #expect(
            try await Self.waitForStatus("on listening", node.environment, timeout: .seconds(120)),
            "\(node.run.stderr)")
        // The reply's own account of its end, whether it came before the phase changed or after.
        #expect(await node.run.waitUntil { node.run.stderr.contains("outcome=finished") }, "\(node.run.stderr)")
        let log = node.run.stderr
        node.printTalkLog()
        let pauses = log.split(separator: "\n").filter { $0.contains("talk.pause") }
        // The field, wherever it stands: an onset's line has the double-talk test's fields after it.
        #expect(pauses.contains { $0.split(separator: " ").contains("on=true") }, "the sound paused the reply: \(log)")
        #expect(pauses.last?.split(separator: " ").contains("on=false") == true, "and it resumed: \(pauses)")
        #expect(!log.contains("talk.barge_in") && !log.contains("tts.stopped"), "not taken for an interruption")
        #expect(log.contains("outcome=finished"), "the reply played to its end")
        #expect(await Self.chatSends(node.gateway).count == 1, "nothing was sent")
        await node.stop()
    }

    @Test func withoutEchoCancellationTheNodeDoesNotListenWhileItSpeaks() async throws {
        let node = try await Node(
            replies: [
                // Long enough (≈ 10 s) to still be playing when the interruption has been played
                // and the status is asked, also when a busy machine is slow at each step.
                "Once upon a time there was a small robot who lived in a lighthouse by the sea. "
                    + "Every night it counted the ships, and every morning it polished the great lamp.",
                "Tomorrow will be sunny.",
            ], echoCancellation: false)
        let story = try node.clip("story", "Tell me a story.")
        let interruption = try node.clip("interruption", "Stop. What is the weather tomorrow?")
        let question = try node.clip("question", "What is the weather tomorrow?")
        let on = try await ClawTalkBinary.run(["talk", "on"], environment: node.environment)
        #expect(on.output == "on listening\n", "\(on.error)\n\(node.run.stderr)")
        try await Task.sleep(for: .milliseconds(500))
        try await Self.play(story)
        #expect(await Self.waitForChatSends(1, node.gateway).count == 1, "\(node.run.stderr)")
        #expect(try await Self.waitForStatus("on speaking", node.environment), "\(node.run.stderr)")
        try await Task.sleep(for: .milliseconds(1000))
        try await Self.play(interruption)
        #expect(try await Self.talkStatus(node.environment) == "on speaking", "speech during playback is ignored")
        #expect(try await Self.waitForStatus("on listening", node.environment), "\(node.run.stderr)")
        // The question is the barrier: had the speech over the reply been sent, it would be the
        // second message, and the question a third.
        try await Self.play(question)
        let sends = await Self.waitForChatSends(2, node.gateway)
        #expect(sends.count == 2)
        #expect(sends.last?.lowercased().contains("stop") == false, "the speech over the reply was sent: \(sends)")
        #expect(!node.run.stderr.contains("talk.pause"), "half-duplex never pauses")
        #expect(node.run.stderr.contains("outcome=finished"), "the reply played to its end")
        #expect(
            sends.last.map { Self.turnTranscripts(node.run.stderr).contains($0) } == true,
            "\(sends)\n\(node.run.stderr)")
        #expect(sends.last?.hasPrefix("(The user interrupted") == false)
        node.printTalkLog()
        await node.stop()
    }
}
