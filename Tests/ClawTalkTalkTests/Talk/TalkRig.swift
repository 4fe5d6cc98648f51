import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Foundation

@testable import ClawTalkTalk

/// A ``TalkModeController`` over fake captures and a fake transcriber, delivering and speaking
/// through the real pipeline (``TalkStack``: delivery, tracker, speech output, reply speaker)
/// against the test gateway, with real-time fake audio so speech lasts as long as its clip.
final class TalkRig: Sendable {
    let harness: GatewayHarness
    let stack: TalkStack
    let capturing: FakeCapturing
    let transcriber: FakeTranscriber
    let controller: TalkModeController
    let pauses = Locked<[Bool]>([])
    let wake = Locked<[String]>([])
    /// The microphone's owner, with ``wake`` as voice wake and the controller as Talk mode.
    let microphone = MicrophoneClaims()
    let phases = Locked<[TalkModeStateMachine.Phase]>([])
    private let tasks: [Task<Void, Never>]

    init(
        _ scripts: CaptureScript..., transcriber: FakeTranscriber = FakeTranscriber(),
        configuration: TalkModeConfiguration = TalkModeConfiguration(), script: OperatorScript = OperatorScript(),
        sampleSeconds: Double = 1, logger: Logger = .discarding,
        gateway configure: @Sendable (inout TestGatewayConfiguration) -> Void = { _ in }
    ) async throws {
        harness = try GatewayHarness(script: script, configure: configure)
        try await harness.startBoth()
        stack = await TalkStack(harness: harness, audio: FakeAudioOutput(realTime: true))
        let capturing = FakeCapturing(sampleSeconds: sampleSeconds)
        for script in scripts { capturing.append(script) }
        self.capturing = capturing
        self.transcriber = transcriber
        let pauses = pauses
        let wake = wake
        let stack = stack
        let hooks = TalkModeHooks(
            microphone: microphone, pauseReply: { on in pauses.update { $0.append(on) } },
            resetSpeechSession: { await stack.speech.resetTalkSession() })
        // Each turn transcribed once, at its end: the transcription at a pause has its own tests
        // (+Speculation); these count and measure the requests.
        var configuration = configuration
        configuration.speculateAfter = nil
        let controller = TalkModeController(
            capturing: capturing, transcriber: transcriber, delivery: stack.delivery, speech: stack.speech,
            hooks: hooks, configuration: configuration, logger: logger)
        self.controller = controller
        await microphone.attach(wake: RecordingWake(calls: wake), talk: controller)
        await controller.attach(operator: harness.operatorSession)
        let stream = await controller.phases()
        let phases = phases
        tasks = [
            Task { await controller.follow(speaker: stack.speaker, tracker: stack.tracker) },
            Task { for await phase in stream { phases.update { $0.append(phase) } } },
        ]
        try await GatewayHarness.wait("Talk follows the replies") { await stack.tracker.subscriberCount >= 2 }
        try await Task.sleep(for: .milliseconds(50))
    }

    /// Waits until the controller's machine satisfies `predicate`.
    func wait(
        _ what: String, timeout: Duration = .seconds(30),
        _ predicate: @escaping @Sendable (TalkModeStateMachine) -> Bool
    ) async throws {
        let controller = controller
        try await GatewayHarness.wait(what, timeout: timeout) { predicate(await controller.state) }
    }

    /// The messages of every `chat.send`.
    func sentMessages() async -> [String] {
        await harness.operatorCalls("chat.send").compactMap { $0["message"]?.stringValue }
    }

    /// Waits for `count` `chat.send` calls and returns their messages.
    func messages(_ count: Int, timeout: Duration = .seconds(30)) async throws -> [String] {
        try await GatewayHarness.wait("\(count) chat.send", timeout: timeout) {
            await self.sentMessages().count >= count
        }
        return await sentMessages()
    }

    /// The params of every `talk.mode` call the gateway executed.
    func reports() async -> [TalkModeParams] {
        await harness.operatorCalls("talk.mode").map {
            TalkModeParams(enabled: $0["enabled"]?.boolValue ?? false, phase: $0["phase"]?.stringValue)
        }
    }

    /// `talk.mode` requests the gateway received (executed or refused).
    func talkModeRequests() async -> Int {
        await harness.gateway.recordedFrames().filter {
            $0.direction == .received && $0.text.contains(#""method":"talk.mode""#)
        }.count
    }

    /// What voice wake was told, once Talk's effects and the owner's have run.
    func wakeCalls() async -> [String] {
        await controller.settle()
        await microphone.settle()
        return wake.value
    }

    func stop() async {
        await controller.shutdown()
        for task in tasks { task.cancel() }
        await stack.stop()
    }
}

/// Voice wake that records what it is told ("suspend", "resume").
struct RecordingWake: WakeListening {
    let calls: Locked<[String]>

    func suspend() async { calls.update { $0.append("suspend") } }
    func resume() async { calls.update { $0.append("resume") } }
}
