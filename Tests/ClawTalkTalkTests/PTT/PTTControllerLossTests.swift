import ClawTalkAudio
import ClawTalkProtocol
import ClawTalkSpeech
import ClawTalkTesting
import Testing

@testable import ClawTalkTalk

/// talk.md §2.7 through the controller on a manual clock: the frames of the fake capture
/// decide when speech and pauses happen, the clock alone when the 10 s loss cap passes.
@Suite("PTT controller: a capture whose controller is gone", .timeLimit(.minutes(1)))
struct PTTControllerLossTests {
    typealias Rig = PTTControllerTests.Rig

    static let socket1 = PTTStateMachine.Origin.gateway(connection: 1)
    static let socket2 = PTTStateMachine.Origin.gateway(connection: 2)
    static let text = "what's on my calendar"

    /// A gateway `start` (socket 1), delivery kept offline: the open capture and its id.
    static func started(_ rig: Rig) async throws -> (FakeCapture, String) {
        let start = await rig.controller.perform(.start, timeout: .seconds(15), origin: socket1)
        let captureId = try #require(start.captureId)
        let capture = try #require(rig.capturing.captures.first)
        return (capture, captureId)
    }

    /// Speech frames from 0 to `seconds`, and waits until the controller has seen speech begin.
    static func speak(_ rig: Rig, _ capture: FakeCapture, until seconds: Double) async throws {
        capture.feed(.speech(from: 0, to: seconds, rms: 0.1))
        let controller = rig.controller
        #expect(await eventually { await controller.machine.speaking })
    }

    @Test func lossWhileSpeakingEndsAtTheNextPauseAndAStopAfterwardsGetsTheResult() async throws {
        let rig = Rig(CaptureScript(frames: []), delivery: RecordingDelivery(.queuedOffline))
        let (capture, captureId) = try await Self.started(rig)
        try await Self.speak(rig, capture, until: 1.0)
        await rig.controller.connectionClosed(connection: 1)
        try await rig.clock.waitForSleeper(until: .seconds(10))
        #expect(PTTControllerTests.capturing(await rig.state()), "speech goes on: no end yet")
        // The last speech frame is at 0.98 s: silence to 1.66 s is not yet a pause (700 ms), the
        // frame at 1.68 s makes it one.
        capture.feed(CaptureScript.silence(0.67).later(by: 1.0))
        #expect(PTTControllerTests.capturing(await rig.state()))
        capture.feed(CaptureScript.silence(0.02).later(by: 1.68))
        #expect(await eventually { rig.delivery.texts == [Self.text] })
        try await rig.waitForState { $0 == .idle }
        #expect(rig.capturing.captures.map(\.outcome) == ["finished"])
        #expect(rig.clock.now.offset == .zero, "the pause ended it, not a timer")

        let stop = await rig.controller.perform(.stop, timeout: .seconds(15), origin: Self.socket2)
        #expect(stop == .finished(TalkPTTResult(captureId: captureId, transcript: Self.text, status: .queued)))
        #expect(rig.delivery.texts == [Self.text], "no second delivery")
        rig.clock.advance(by: .seconds(10))
        await rig.controller.settle()
        #expect(rig.delivery.texts == [Self.text])
        #expect(await rig.state() == .idle)
    }

    @Test func lossWithNothingSaidEndsAtOnce() async throws {
        let rig = Rig(.silence(2), transcriber: FakeTranscriber(.text("")), delivery: RecordingDelivery(.queuedOffline))
        let (_, captureId) = try await Self.started(rig)
        await rig.controller.connectionClosed(connection: 1)
        try await rig.waitForState { $0 == .idle }
        #expect(rig.capturing.captures.map(\.outcome) == ["finished"])
        #expect(rig.delivery.texts.isEmpty, "nothing to deliver")
        #expect(rig.clock.now.offset == .zero)
        let stop = await rig.controller.perform(.stop, timeout: .seconds(15), origin: Self.socket2)
        #expect(stop == .finished(TalkPTTResult(captureId: captureId, transcript: nil, status: .empty)))
    }

    @Test func continuousSpeechEndsTenSecondsAfterTheLoss() async throws {
        let rig = Rig(CaptureScript(frames: []), delivery: RecordingDelivery(.queuedOffline))
        let (capture, captureId) = try await Self.started(rig)
        try await Self.speak(rig, capture, until: 30)
        await rig.controller.connectionClosed(connection: 1)
        try await rig.clock.waitForSleeper(until: .seconds(10))
        rig.clock.advance(by: .milliseconds(9_990))
        // The barriers: the controller has read every frame, and the cap still sleeps.
        await capture.read()
        #expect(rig.clock.sleeperDeadlines.contains(.seconds(10)))
        #expect(PTTControllerTests.capturing(await rig.state()), "not before the cap")
        rig.clock.advance(by: .milliseconds(10))
        #expect(await eventually { rig.delivery.texts == [Self.text] })
        try await rig.waitForState { $0 == .idle }
        let stop = await rig.controller.perform(.stop, origin: Self.socket2)
        #expect(stop == .finished(TalkPTTResult(captureId: captureId, transcript: Self.text, status: .queued)))
        #expect(rig.delivery.texts.count == 1)
    }

    @Test func aStopAfterTheLossBeforeTheEndWins() async throws {
        let rig = Rig(CaptureScript(frames: []))
        let (capture, captureId) = try await Self.started(rig)
        try await Self.speak(rig, capture, until: 2)
        await rig.controller.connectionClosed(connection: 1)
        try await rig.clock.waitForSleeper(until: .seconds(10))
        let stop = await rig.controller.perform(.stop, timeout: .seconds(15), origin: Self.socket2)
        #expect(stop == .finished(TalkPTTResult(captureId: captureId, transcript: Self.text, status: .queued)))
        rig.clock.advance(by: .seconds(10))
        await rig.controller.settle()
        #expect(rig.delivery.texts == [Self.text], "delivered once, by the stop")
        let again = await rig.controller.perform(.stop, origin: Self.socket2)
        guard case .finished(let idle) = again else {
            Issue.record("\(again)")
            return
        }
        #expect(idle.status == .idle, "the stop took it: nothing is remembered")
        #expect(idle.captureId != captureId)
    }

    @Test func aLocalCaptureIsUnaffected() async throws {
        let rig = Rig(CaptureScript(frames: []), delivery: RecordingDelivery(.queuedOffline))
        let start = await rig.controller.perform(.start)
        let captureId = try #require(start.captureId)
        let capture = try #require(rig.capturing.captures.first)
        try await Self.speak(rig, capture, until: 1)
        capture.feed(CaptureScript.silence(2).later(by: 1))
        await rig.controller.connectionClosed(connection: 1)
        // The barrier: the side effects of the close have run, and no loss timer was started.
        await rig.controller.settle()
        #expect(await !rig.controller.hasLossTimer(captureId))
        #expect(PTTControllerTests.capturing(await rig.state()), "its controller is still there")
        #expect(rig.delivery.texts.isEmpty)
        let stop = await rig.controller.perform(.stop)
        #expect(stop == .finished(TalkPTTResult(captureId: captureId, transcript: Self.text, status: .offline)))
    }
}

extension PTTController {
    /// Whether the capture `id` waits on a loss timer (its gateway controller is gone).
    fileprivate func hasLossTimer(_ id: String) -> Bool { active[id]?.lossTimer != nil }
}
