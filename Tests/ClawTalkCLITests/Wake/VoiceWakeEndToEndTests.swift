import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkTesting
import Foundation
import Testing

/// The whole voice-wake flow of `clawtalk run` (the built binary) on the audio rig: espeak-ng
/// speech played into the rig's speaker is what its microphone hears; the service detects the
/// trigger (PocketSphinx), verifies it and transcribes the command with Whisper
/// (wyoming-faster-whisper, base model, started by the test), and sends the command to the test
/// gateway. The gateway's trigger list changes live by `voicewake.changed`.
@Suite(
    "Voice wake end to end (audio rig)", .serialized, .timeLimit(.minutes(2)),
    .enabled(if: ProcessInfo.processInfo.environment["CLAWTALK_DEVICE_TESTS"] == "1"),
    .enabled(if: WakeWhisper.isInstalled, "needs the venv and the Whisper base model"))
struct VoiceWakeEndToEndTests {
    static let phrase = #"computer <break time="800ms"/> what time is it"#

    @Test func spokenCommandIsSentOnceWithoutTheTriggerAndTriggerChangesApplyLive() async throws {
        let server = try await WyomingServerProcess.start(WakeWhisper.configuration)
        defer { server.stop() }
        let directory = try TempDirectory(prefix: "wake-e2e")
        let clip = try SpokenClip.wav(Self.phrase, padBefore: 0.5, padAfter: 0.5, in: directory)
        let home = try TemporaryHome()
        defer { home.remove() }
        try home.writeConfig(
            """
            { wake: { engine: "pocketsphinx", route: "chat-send", thresholds: { computer: 1e-30 } },
              stt: { engine: "wyoming", wyomingPort: \(server.port) } }
            """)
        let (gateway, url) = try await EndToEnd.gateway { configuration in
            configuration.auth = .token("s3cret")
            configuration.autoApproveLoopback = true
        }
        defer { Task { await gateway.stopListening() } }
        // The gateway's list leaves "computer" out at first.
        await gateway.setVoiceWakeTriggers(["openclaw"])
        var environment = home.environment
        environment["CLAWTALK_GATEWAY_URL"] = url
        environment["CLAWTALK_GATEWAY_TOKEN"] = "s3cret"
        let run = try RunningBinary(["run", "--log-sensitive"], environment: environment)
        defer { run.kill() }
        _ = try await EndToEnd.connected(gateway, role: "operator")
        #expect(await run.waitForOutput("wake.started", timeout: .seconds(20)), "\(run.stderr)")
        #expect(await run.waitUntil { run.stderr.contains("wake.triggers.changed") }, "\(run.stderr)")
        #expect(!run.stderr.contains("wake.unavailable"), "\(run.stderr)")

        // "computer" is not a trigger: nothing is sent.
        try runTool("paplay", ["-d", "vspk", clip])
        try await Task.sleep(for: .seconds(3))
        #expect(await Self.chatSends(gateway).isEmpty, "\(run.stderr)")
        #expect(!run.stderr.contains("wake.accepted"))

        // The gateway adds it back; no restart.
        await gateway.setVoiceWakeTriggers(["openclaw", "computer"])
        #expect(
            await run.waitUntil { run.stderr.contains("triggers=openclaw,computer") }, "\(run.stderr)")
        try runTool("paplay", ["-d", "vspk", clip])
        let deadline = ContinuousClock.now + .seconds(20)
        while await Self.chatSends(gateway).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        // Late duplicates would come within the cooldown; wait past it.
        try await Task.sleep(for: .seconds(2))
        let sends = await Self.chatSends(gateway)
        #expect(sends.count == 1, "\(sends)\n\(run.stderr)")
        let message = try #require(sends.first, "\(run.stderr)").lowercased()
        #expect(message.contains("what time is it"), "\(message)")
        #expect(!message.contains("computer"), "\(message)")
        #expect(run.stderr.contains("wake.accepted"))
        #expect(run.stderr.contains("wake.sent"))
        print(run.stderr.split(separator: "\n").filter { $0.contains("wake.") }.joined(separator: "\n"))

        run.send(SIGTERM)
        #expect(await run.waitForExit(timeout: .seconds(5)) == 0)
    }

    static func chatSends(_ gateway: TestGateway) async -> [String] {
        await gateway.observedEvents.compactMap { event -> String? in
            if case .operatorCall(_, "chat.send", let params) = event { return params?["message"]?.stringValue }
            return nil
        }
    }
}

/// The installed Whisper server (scripts/setup, scripts/fetch-whisper-model).
enum WakeWhisper {
    static let configuration = WyomingServerProcess.Configuration.installed()
    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: configuration.executable) && configuration.hasModel
    }
}
