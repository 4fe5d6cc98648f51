import ClawTalkAudio
import ClawTalkDesktop
import ClawTalkSpeech
import ClawTalkSupport
import ClawTalkTalk
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

@testable import ClawTalkNode

/// `clawtalk talk …` as the service answers it: through the push-to-talk control handler to the
/// Talk controller, and push-to-talk's lease pausing Talk.
@Suite("Talk mode service", .serialized, .timeLimit(.minutes(1)))
struct TalkModeServiceTests {
    /// Captures that stay silent and open.
    struct Silent: UtteranceCapturing {
        func begin() async throws -> any UtteranceCapture { Capture() }

        final class Capture: UtteranceCapture {
            let frames: AsyncStream<UtteranceFrame>
            init() { frames = AsyncStream { _ in } }
            func snapshot() async -> PCMBuffer { PCMBuffer(format: .speech, samples: []) }
            func finish() async -> PCMBuffer { PCMBuffer(format: .speech, samples: []) }
            func cancel() async {}
        }
    }

    static func service(_ home: TemporaryHome, microphone: MicrophoneClaims? = nil) -> TalkModeService {
        TalkModeService(
            settings: Settings(), environment: home.environment, logger: .discarding, capturing: Silent(),
            transcriber: PushToTalkServiceTests.FixedTranscriber(),
            delivery: NodeTranscriptDelivery(sessionKey: "main", logger: .discarding), speech: nil,
            echoControlled: true, microphone: microphone)
    }

    @Test func controlRequestsTurnTalkOnAndOff() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let microphone = MicrophoneClaims()
        let talk = Self.service(home, microphone: microphone)
        await microphone.attach(wake: nil, talk: talk.controller)
        let ptt = PushToTalkService(
            settings: Settings(), environment: home.environment, logger: .discarding, microphone: microphone,
            talk: talk)
        #expect(await ptt.handle(ControlRequest(command: .talkStatus)) == .talk(enabled: false, phase: "idle"))
        #expect(await ptt.handle(ControlRequest(command: .talkOn)) == .talk(enabled: true, phase: "listening"))
        #expect(await ptt.handle(ControlRequest(command: .talkToggle)) == .talk(enabled: false, phase: "idle"))
        #expect(await ptt.handle(ControlRequest(command: .talkToggle)) == .talk(enabled: true, phase: "listening"))
        // Talk's claim is one of its effects: settled, it has reached the owner.
        await talk.controller.settle()
        await microphone.pushToTalkBegan()
        #expect(await talk.controller.state.isPaused, "push-to-talk pauses Talk that is on")
        await microphone.pushToTalkEnded()
        await talk.controller.settle()
        #expect(await talk.controller.state.isCapturing)
        #expect(await ptt.handle(ControlRequest(command: .talkOff)) == .talk(enabled: false, phase: "idle"))
        await talk.controller.shutdown()
    }

    @Test func eachEntryIntoTalkModeIsSeenOnce() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let talk = Self.service(home)
        let entries = Mutex(0)
        let watcher = Task { await talk.onEntry { entries.locked { $0 += 1 } } }
        _ = await talk.handle(.talkOn)
        try await Self.wait { entries.locked { $0 } == 1 }
        _ = await talk.handle(.talkOn)
        _ = await talk.handle(.talkOff)
        _ = await talk.handle(.talkToggle)
        try await Self.wait { entries.locked { $0 } == 2 }
        // A marker entry: phases arrive in order, so an entry counted at the start (off) or for
        // the second 'on' while on would have been counted before it.
        _ = await talk.handle(.talkOff)
        _ = await talk.handle(.talkOn)
        try await Self.wait { entries.locked { $0 } >= 3 }
        #expect(entries.locked { $0 } == 3, "none at the start, and a second 'on' while on is not an entry")
        watcher.cancel()
        await talk.controller.shutdown()
    }

    static func wait(_ condition: @Sendable () -> Bool) async throws {
        #expect(await eventually { condition() })
    }

    @Test func withoutTalkTheControlSocketSaysSo() async throws {
        let home = try TemporaryHome()
        defer { home.remove() }
        let ptt = PushToTalkService(settings: Settings(), environment: home.environment, logger: .discarding)
        let answer = await ptt.handle(ControlRequest(command: .talkOn))
        #expect(answer.ok == false)
        #expect(answer.error?.hasPrefix("UNAVAILABLE:") == true)
    }
}
