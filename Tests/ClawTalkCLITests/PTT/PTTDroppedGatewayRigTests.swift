import ClawTalkProtocol
import ClawTalkTestTraits
import ClawTalkTesting
import Foundation
import Testing

/// Issue 6 item 7, "a dropped gateway mid-utterance loses nothing", through the built binary on
/// the audio rig: a push-to-talk capture is running when the gateway disappears (its listener
/// and sockets end without a closing handshake); the spoken question is transcribed anyway,
/// `ptt stop` answers `offline`, and when the gateway is back on the same port the node sends
/// the queued transcript as `voice.transcript`, once.
///
/// On an audio rig of its own (``PrivateAudioRig``): no `.audioRig` turn, so in a parallel run
/// it runs beside the shared rig's tests (its reconnect backoff took up to 72 s of their chain).
@Suite(
    "Dropped gateway mid-utterance (private audio rig)", .serialized, .timeLimit(.minutes(3)),
    .needsAudioRig)
struct PTTDroppedGatewayRigTests {
    @Test func aTranscriptSpokenWhileTheGatewayDropsIsQueuedAndSentOnReconnect() async throws {
        let directory = try TempDirectory(prefix: "ptt-drop")
        let clip = try SpokenClip.wav("what time is it", padBefore: 0.3, padAfter: 0.8, in: directory)
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
        let run = try RunningBinary(["run", "--log-sensitive"], environment: environment)
        defer { run.kill() }
        let first = try await EndToEnd.connected(gateway)

        let start = try await ClawTalkBinary.run(["ptt", "start"], environment: environment)
        #expect(start.status == 0, "\(start.error)\n\(run.stderr)")
        #expect(start.output.hasPrefix("started "), "\(start.output)")
        // The gateway goes away in the middle of the question.
        let speaking = Task.detached { try runTool("paplay", ["-s", rig.server, "-d", "vspk", clip]) }
        try await Task.sleep(for: .milliseconds(700))
        await gateway.stopListening()
        try await speaking.value
        #expect(
            await run.waitUntil { run.stderr.contains("gateway.disconnected") },
            "\(run.stderr)")

        let stop = try await ClawTalkBinary.run(["ptt", "stop", "--json"], environment: environment)
        #expect(stop.status == 0, "\(stop.error)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(stop.output.utf8)) as? [String: Any])
        #expect(answer["status"] as? String == "offline", "\(answer)\n\(run.stderr)")
        let transcript = try #require(answer["transcript"] as? String, "\(answer)")
        // PocketSphinx's words for espeak-ng speech heard through the rig vary: what matters is
        // that the question was transcribed and that exactly this text is delivered later.
        #expect(!transcript.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(answer)")
        #expect(await Self.transcripts(gateway).isEmpty)

        // Back on the same port: the node reconnects (backoff) and flushes its outbox.
        try await gateway.listen(port: port)
        let second = try await EndToEnd.connected(gateway, number: 2)
        #expect(second != first)
        #expect(await eventually(within: .seconds(30)) { await !Self.transcripts(gateway).isEmpty }, "\(run.stderr)")
        // The barrier: the outbox is empty (its file removed once the transcript was sent); nothing
        // is left to send again.
        #expect(await eventually(within: .seconds(30)) { home.outboxFiles.isEmpty }, "\(home.outboxFiles)")
        #expect(await Self.transcripts(gateway) == [transcript], "\(run.stderr)")

        run.send(SIGTERM)
        #expect(await run.waitForExit() == 0)
    }

    /// `voice.transcript` texts the gateway accepted, in order.
    static func transcripts(_ gateway: TestGateway) async -> [String] {
        await gateway.observedEvents.compactMap { event -> String? in
            if case .nodeEvent(_, "voice.transcript", let payload) = event { return payload?["text"]?.stringValue }
            return nil
        }
    }
}
