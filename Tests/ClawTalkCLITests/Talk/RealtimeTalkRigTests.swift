import ClawTalkAudio
import ClawTalkProtocol
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

/// Realtime Talk over the gateway relay end to end on the headless audio rig (talk.md §9.2): the
/// built `clawtalk run` opted in, the test gateway's emulated realtime provider on a loopback
/// port, speech played by espeak-ng into the rig's speaker `vspk` (whose monitor is the
/// microphone `vmic`), and the node playing the provider's reply into the same sink. The node
/// hears its own reply: the echo path is real, and only the echo canceller and the onset detector
/// keep it from cancelling itself.
@Suite(
    "Realtime Talk over the relay (audio rig)", .serialized, .audioRig, .timeLimit(.minutes(4)),
    .needsAudioRig,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng"), "needs espeak-ng"))
struct RealtimeTalkRigTests {
    /// `text` spoken by espeak-ng as the provider's reply: pcm16 at 24 kHz (linear interpolation
    /// from espeak's 22 050 Hz is good enough for a test signal). A reply is speech: the echo
    /// canceller's delay-agnostic mode finds the echo path on broadband audio within a second; on
    /// a pure tone it took seconds (its delay is ambiguous modulo the period), long enough for the
    /// provider's VAD to take the first second of residual echo for the user.
    static func spokenReply(_ text: String) throws -> [Int16] {
        let path = NSTemporaryDirectory() + "clawtalk-realtime-reply-\(UUID().uuidString).wav"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let child = try TalkModeRigTests.Child("espeak-ng", ["-s", "150", "-w", path, text])
        child.wait()
        let clip = try WAVFile.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
        let step = Double(clip.format.sampleRate) / 24_000
        let count = Int(Double(clip.samples.count) / step)
        return (0..<count).map { index in
            let position = Double(index) * step
            let base = Int(position)
            let next = min(base + 1, clip.samples.count - 1)
            let fraction = position - Double(base)
            return Int16(Double(clip.samples[base]) * (1 - fraction) + Double(clip.samples[next]) * fraction)
        }
    }

    /// `clawtalk run` opted in to the relay, against a gateway whose `talk.realtime` asks for it.
    final class Node: @unchecked Sendable {
        let home: TemporaryHome
        let gateway: TestGateway
        let environment: [String: String]
        let run: RunningBinary
        let directory: String

        init(_ change: @Sendable (inout TestRealtimeScript) -> Void = { _ in }) async throws {
            home = try TemporaryHome()
            var configuration = TestGatewayConfiguration()
            configuration.auth = .token("s3cret")
            configuration.autoApproveLoopback = true
            var script = OperatorScript()
            var config = script.talkConfig.objectValue ?? [:]
            var talk = config["talk"]?.objectValue ?? [:]
            talk["realtime"] = ["mode": "realtime", "transport": "gateway-relay", "voice": "test-voice"]
            config["talk"] = .object(talk)
            script.talkConfig = .object(config)
            change(&script.realtime)
            gateway = TestGateway(configuration: configuration, script: script)
            let url = try await gateway.listen()
            var environment = home.environment
            environment["CLAWTALK_GATEWAY_URL"] = url
            environment["CLAWTALK_GATEWAY_TOKEN"] = "s3cret"
            environment["CLAWTALK_TALK_REALTIME_RELAY"] = "true"
            environment["CLAWTALK_LOG_LEVEL"] = "debug"
            self.environment = environment
            run = try RunningBinary(["run"], environment: environment)
            directory = home.root + "/clips"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            _ = try await EndToEnd.connected(gateway, role: "operator")
        }

        /// A WAV of espeak-ng saying `text`.
        func clip(_ name: String, _ text: String) throws -> String {
            let path = directory + "/\(name).wav"
            let child = try TalkModeRigTests.Child("espeak-ng", ["-s", "150", "-w", path, text])
            child.wait()
            return path
        }

        /// A WAV of `seconds` of a loud 1 kHz burst with 0.3 s of silence around it.
        func burst(_ name: String, seconds: Double) throws -> String {
            let rate = 16_000.0
            var samples = [Int16](repeating: 0, count: Int(0.3 * rate))
            samples += (0..<Int(seconds * rate)).map { Int16(20_000 * sin(2 * Double.pi * 1000 * Double($0) / rate)) }
            samples += [Int16](repeating: 0, count: Int(0.3 * rate))
            let path = directory + "/\(name).wav"
            try WAVFile.encode(PCMBuffer(format: .speech, samples: samples)).write(to: URL(fileURLWithPath: path))
            return path
        }

        func sessions() async -> [TestRealtimeSession] { await gateway.recordedRealtimeSessions() }

        /// Talk on, and the relay live (audio arriving at the gateway).
        func talkOn() async throws {
            let on = try await ClawTalkBinary.run(["talk", "on"], environment: environment)
            #expect(on.output.hasPrefix("on"), "\(on.error)\n\(run.stderr)")
            #expect(
                await eventually(within: .seconds(60)) { (await self.sessions().first?.timestamps.count ?? 0) > 10 },
                "\(run.stderr)")
        }

        /// A freshly started node's echo canceller converges during the first second of its first
        /// reply (`EchoCancellationRigTests` measures the ERLE only after 1 s), and until then the
        /// provider's VAD may take the residual for the user and answer it. One reply played out
        /// to its last mark, with no provider turn running after it, leaves the canceller converged,
        /// as on a node that has spoken before.
        func warmUp(_ reply: [Int16]) async throws {
            await gateway.startRealtimeReply()
            let lastMark = (reply.count + 479) / 480
            #expect(
                await eventually(within: .seconds(60)) {
                    guard let session = await self.sessions().first, session.activeTurn == nil,
                        let turn = session.turns.last
                    else { return false }
                    return session.marks.contains { $0.name == "\(turn)-m\(lastMark)" && $0.acknowledgedAt != nil }
                }, "\(run.stderr)")
        }

        /// The log's realtime lines; with `CLAWTALK_RIG_DUMP=<dir>` also the audio each session
        /// received (the echo-cancelled microphone) as WAV files, to measure the residual echo.
        func printLog() {
            if let dump = ProcessInfo.processInfo.environment["CLAWTALK_RIG_DUMP"] {
                let semaphore = DispatchSemaphore(value: 0)
                Task {
                    for session in await self.sessions() {
                        let path = dump + "/\(session.sessionId).wav"
                        try? WAVFile.encode(PCMBuffer(format: AudioFormat(sampleRate: 24_000), samples: session.audio))
                            .write(to: URL(fileURLWithPath: path))
                        print("realtime rig: dumped \(path) turns=\(session.turns) marks=\(session.marks.count)")
                    }
                    semaphore.signal()
                }
                semaphore.wait()
            }
            for line in run.stderr.split(separator: "\n") where line.contains("realtime") || line.contains("talk.phase")
            {
                print("realtime rig: \(line)")
            }
        }

        func stop() async {
            run.kill()
            await gateway.stopListening()
            home.remove()
        }
    }

    @Test(
        "a spoken question gets the reply aloud; speech over a reply cancels it; appends are whole and ordered")
    func turnAndBargeIn() async throws {
        let reply = try Self.spokenReply("Paris is the capital of France.")
        let node = try await Node {
            $0.reply = reply
            $0.chunkPaceMs = 18
            $0.serverVAD = false
        }
        defer { node.printLog() }
        try await node.talkOn()
        try await node.warmUp(reply)
        await node.gateway.setRealtimeServerVAD(true)
        let turnsBefore = await node.sessions().first?.turns.count ?? 0
        let question = try node.clip("question", "What is the capital of France?")
        try await TalkModeRigTests.play(question)
        // The provider's VAD heard the question through the rig and answered; the reply played
        // out, each mark acknowledged only once the audio before it had played. The provider's
        // VAD may hear the question as two turns (a pause inside it): the second replaces the
        // first's reply, and the last turn's reply is the one that plays out.
        let lastMark = (reply.count + 479) / 480
        #expect(
            await eventually(within: .seconds(60)) {
                guard let session = await node.sessions().first, session.turns.count > turnsBefore,
                    let last = session.turns.last
                else { return false }
                let marks = session.marks.filter { $0.turnId == last }
                return marks.contains { $0.name == "\(last)-m\(lastMark)" }
                    && marks.allSatisfy { $0.acknowledgedAt != nil }
            }, "\(node.run.stderr)")
        let turn = await node.sessions().first?.turns.last ?? "turn-\(turnsBefore + 1)"
        for mark in await node.sessions().first?.marks ?? [] where mark.turnId == turn {
            guard let acknowledged = mark.acknowledgedAt else { continue }
            #expect(acknowledged - mark.turnStartedAt >= .milliseconds(mark.audioBeforeMs - 5), "\(mark)")
        }

        // The transcripts and the privacy note reach `clawtalk status`.
        #expect(
            await eventually(within: .seconds(10)) {
                guard let status = try? await ClawTalkBinary.run(["status"], environment: node.environment)
                else { return false }
                return status.output.contains("heard:") && status.output.contains("\"what time is it\"")
                    && status.output.contains("replied:") && status.output.contains("realtime:")
            })
        // A long reply, then the user speaks over it (once its first second has played). The
        // provider's VAD is off: the node's own barge-in is what is checked, not raced by a turn
        // the provider would start on the same speech.
        await node.gateway.setRealtimeServerVAD(false)
        await node.gateway.setRealtimeReply(
            try Self.spokenReply(
                "Berlin is the capital of Germany, a city of museums, lakes and long summer evenings by the river Spree."
            ))
        await node.gateway.startRealtimeReply()
        let long = try #require(await node.sessions().first?.turns.last)
        #expect(
            await eventually(within: .seconds(30)) {
                await node.sessions().first?.marks.contains {
                    $0.turnId == long && $0.audioBeforeMs >= 1000 && $0.acknowledgedAt != nil
                } == true
            }, "\(node.run.stderr)")
        let interruption = try node.clip("interruption", "Wait stop and tell me about Rome instead")
        try await TalkModeRigTests.play(interruption)
        #expect(
            await eventually(within: .seconds(30)) {
                await node.sessions().first?.cancels.contains { $0.turnId == long } == true
            }, "\(node.run.stderr)")
        let session = try #require(await node.sessions().first)
        #expect(session.cancels.first { $0.turnId == long }?.status == "applied")
        #expect(session.timestamps == (0..<session.timestamps.count).map { Int64($0 * 20) })
        #expect(session.maxInFlight <= 4)
        await node.stop()
    }

    @Test(
        "a short burst over the reply cancels nothing; the reply plays out")
    func shortSoundDoesNotCancel() async throws {
        let reply = try Self.spokenReply("The weather today is sunny and warm, with a light breeze from the west.")
        let chunks = (reply.count + 479) / 480
        let node = try await Node {
            $0.reply = reply
            $0.chunkPaceMs = 18
            $0.markEveryChunks = 25
            $0.serverVAD = false
        }
        defer { node.printLog() }
        try await node.talkOn()
        try await node.warmUp(reply)
        let cancelsBefore = await node.sessions().first?.cancels.count ?? 0
        let click = try node.burst("click", seconds: 0.04)
        await node.gateway.startRealtimeReply()
        let turn = try #require(await node.sessions().first?.turns.last)
        // One second of the reply has played (two marks): the burst comes well into it.
        #expect(
            await eventually(within: .seconds(30)) {
                await node.sessions().first?.marks.filter { $0.turnId == turn && $0.acknowledgedAt != nil }.count ?? 0
                    >= 2
            }, "\(node.run.stderr)")
        try await TalkModeRigTests.play(click)
        #expect(
            await eventually(within: .seconds(30)) {
                // A mark every 25 chunks and one at the end.
                guard let marks = await node.sessions().first?.marks.filter({ $0.turnId == turn }),
                    marks.count == (chunks + 24) / 25
                else { return false }
                return marks.allSatisfy { $0.acknowledgedAt != nil }
            }, "\(node.run.stderr)")
        #expect(await node.sessions().first?.cancels.count == cancelsBefore)
        await node.stop()
    }

    @Test(
        "session replacement mid-reply keeps Talk; talk off closes the session")
    func replacementThenExit() async throws {
        let reply = try Self.spokenReply("Here is a longer answer, so that the session can be replaced in its middle.")
        let node = try await Node {
            $0.reply = reply
            $0.chunkPaceMs = 18
            $0.serverVAD = false
        }
        defer { node.printLog() }
        try await node.talkOn()
        try await node.warmUp(reply)
        await node.gateway.startRealtimeReply()
        let first = try #require(await node.sessions().first?.turns.last)
        // Mid-reply: its first mark (10 chunks) was played and acknowledged.
        #expect(
            await eventually(within: .seconds(30)) {
                await node.sessions().first?.marks.contains { $0.turnId == first && $0.acknowledgedAt != nil } == true
            }, "\(node.run.stderr)")
        await node.gateway.replaceRealtimeSession()
        #expect(await node.run.waitForOutput("realtime.replaced"))
        await node.gateway.startRealtimeReply()
        let turn = try #require(await node.sessions().first?.turns.last)
        let marks = ((reply.count + 479) / 480 + 9) / 10
        #expect(
            await eventually(within: .seconds(30)) {
                await node.sessions().first?.marks.filter { $0.turnId == turn && $0.acknowledgedAt != nil }.count
                    == marks
            }, "\(node.run.stderr)")
        #expect(await node.sessions().count == 1)
        let off = try await ClawTalkBinary.run(["talk", "off"], environment: node.environment)
        #expect(off.output.hasPrefix("off"))
        #expect(await eventually(within: .seconds(30)) { await node.sessions().first?.closed == true })
        await node.stop()
    }

    @Test("relay failures past the reconnects fall back to native Talk with one notice")
    func failuresFallBack() async throws {
        let node = try await Node { $0.failCreates = 3 }
        defer { node.printLog() }
        let on = try await ClawTalkBinary.run(["talk", "on"], environment: node.environment)
        #expect(on.output.hasPrefix("on"))
        #expect(
            await node.run.waitForOutput("realtime.fallback_to_native", timeout: .seconds(60)), "\(node.run.stderr)")
        let notices = node.run.stderr.split(separator: "\n").filter { $0.contains("realtime.fallback_to_native") }
        #expect(notices.count == 1)
        let status = try await ClawTalkBinary.run(["talk", "status"], environment: node.environment)
        #expect(status.output.hasPrefix("on"), "native Talk runs on")
        #expect(await node.sessions().isEmpty)
        await node.stop()
    }
}
