import ClawTalkProtocol
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

/// Issue 14 part 5 (talk.md §2.7), "a capture whose controller is gone", through the built
/// binary on the audio rig: the gateway starts a capture with `talk.ptt.start`, the question is
/// spoken, and the gateway restarts (`shutdown`, close 1012, listener gone) in the middle of it.
/// Nobody sends `stop`: the capture ends by itself at the next pause, its transcript is queued,
/// and when the gateway is back on the same port it arrives as `voice.transcript` exactly once,
/// within 15 s of the reconnect. A `stop` from the gateway afterwards answers the finished result.
///
/// On an audio rig of its own (``PrivateAudioRig``): no `.audioRig` turn, so in a parallel run
/// it runs beside the shared rig's tests.
@Suite(
    "Gateway restart during a gateway-started capture (private audio rig)", .serialized,
    .timeLimit(.minutes(3)),
    .needsAudioRig)
struct PTTGatewayRestartRigTests {
    @Test func theTranscriptArrivesOnceAfterTheReconnectWithoutAStop() async throws {
        let directory = try TempDirectory(prefix: "ptt-restart")
        let clip = try SpokenClip.wav(
            "play some quiet music while i work", padBefore: 0.3, padAfter: 1.5, in: directory)
        let home = try TemporaryHome()
        defer { home.remove() }
        let rig = try await PrivateAudioRig.start()
        defer { rig.stop() }
        // PocketSphinx keeps the test independent of the Whisper server; wake is off so only
        // push-to-talk listens.
        try home.writeConfig(
            """
            { wake: { enabled: false }, stt: { engine: "pocketsphinx" },
              gateway: { operator: { enabled: false } } }
            """)
        let (gateway, url) = try await EndToEnd.gateway { configuration in
            configuration.auth = .token("s3cret")
            configuration.autoApproveLoopback = true
        }
        defer { Task { await gateway.stopListening() } }
        let port = try #require(URLComponents(string: url)?.port)
        var environment = home.environment
        environment["CLAWTALK_GATEWAY_URL"] = url
        environment["CLAWTALK_GATEWAY_TOKEN"] = "s3cret"
        environment.merge(rig.environment) { _, new in new }
        let run = try RunningBinary(["run", "--log-sensitive", "--log-level", "debug"], environment: environment)
        defer { run.kill() }
        let first = try await EndToEnd.connected(gateway)
        let nodeId = try #require(await gateway.session(connection: first)?.deviceId)

        let start = await gateway.invoke(
            nodeId: nodeId, command: "talk.ptt.start", params: .json("{}"), bypassPolicy: true)
        let captureId = try #require(try Self.payload(start, run)["captureId"]?.stringValue)
        // The gateway restarts in the middle of the question (once the node hears it, however
        // slowly the player starts) and is gone for a while.
        let speaking = Task.detached { try runTool("paplay", ["-s", rig.server, "-d", "vspk", clip]) }
        #expect(await run.waitUntil { run.stderr.contains("ptt.speech.started") }, "\(run.stderr)")
        try await Task.sleep(for: .milliseconds(300))
        await gateway.shutdown(reason: "gateway restarting", restartExpectedMs: .ms(2_000))
        await gateway.stopListening()
        try await speaking.value
        #expect(await run.waitUntil { run.stderr.contains("gateway.disconnected") }, "\(run.stderr)")
        try await Task.sleep(for: .seconds(2))

        // Back on the same port; it has forgotten the capture and never sends stop.
        try await gateway.listen(port: port)
        let second = try await EndToEnd.connected(gateway, number: 2, timeout: .seconds(60))
        let reconnected = ContinuousClock.now
        #expect(second != first)
        _ = await eventually(within: .seconds(15)) { await !Self.transcripts(gateway).isEmpty }
        let arrived = ContinuousClock.now - reconnected
        let delivered = await Self.transcripts(gateway)
        #expect(delivered.count == 1, "\(delivered)\n\(run.stderr)")
        #expect(arrived < .seconds(15), "arrived \(arrived) after the reconnect")
        #expect(
            run.stderr.contains("ptt.capture.ended_without_controller"), "the capture ended by itself\n\(run.stderr)")
        #expect(!run.stderr.contains("ptt.command command=stop"), "nobody sent stop")

        // A stop for it now answers the finished result and sends nothing again.
        let stop = await gateway.invoke(
            nodeId: nodeId, command: "talk.ptt.stop", params: .json("{}"), bypassPolicy: true)
        let answer = try Self.payload(stop, run)
        #expect(answer["captureId"]?.stringValue == captureId)
        #expect(answer["status"] == "queued", "\(answer)")
        let transcript = try #require(delivered.first)
        #expect(!transcript.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        #expect(answer["transcript"]?.stringValue == transcript)
        // The barrier: the outbox is empty (its file removed once the transcript was sent); nothing
        // is left to send again.
        #expect(await eventually { home.outboxFiles.isEmpty }, "\(home.outboxFiles)")
        #expect(await Self.transcripts(gateway) == [transcript], "exactly once\n\(run.stderr)")

        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
    }

    /// The `payloadJSON` object of a successful invoke.
    static func payload(_ outcome: TestInvokeOutcome, _ run: RunningBinary) throws -> [String: WireJSON] {
        guard case .ok(let payloadJSON?, _) = outcome else {
            throw EndToEndError("invoke failed: \(outcome)\n\(run.stderr)")
        }
        return try #require(try WireJSON(parsing: payloadJSON).objectValue?.dictionary)
    }

    /// `voice.transcript` texts the gateway accepted, in order.
    static func transcripts(_ gateway: TestGateway) async -> [String] {
        await PTTDroppedGatewayRigTests.transcripts(gateway)
    }
}
