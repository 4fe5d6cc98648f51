import ClawTalkGateway
import ClawTalkProtocol
import ClawTalkSupport
import ClawTalkTesting
import Synchronization

@testable import ClawTalkTalk

/// Delivery, reply tracking, speech output and the reply speaker wired like the service does,
/// over a ``GatewayHarness``, with fake audio and a fake local synthesizer.
final class TalkStack: Sendable {
    let harness: GatewayHarness
    let tracker: ReplyTracker
    let delivery: TranscriptDelivery
    let speech: SpeechOutput
    let speaker: ReplySpeaker
    let audio: FakeAudioOutput
    let local: FakeLocalSynthesizer
    let lastReply: LastReplyStore
    let earcons = Locked(0)
    private let recorded = Locked<[ReplySpeaker.Event]>([])
    private let speakerTask: Task<Void, Never>
    private let recorderTask: Task<Void, Never>

    init(
        harness: GatewayHarness, delivery configuration: TranscriptDelivery.Configuration = .init(),
        timing: ReplyTracker.Timing = .init(), speech speechConfiguration: SpeechOutput.Configuration = .init(),
        audio: FakeAudioOutput = FakeAudioOutput(), local: FakeLocalSynthesizer = FakeLocalSynthesizer(),
        now: @escaping @Sendable () -> Int64 = DeviceIdentity.currentTimeMs
    ) async {
        self.harness = harness
        self.audio = audio
        self.local = local
        tracker = ReplyTracker(timing: timing)
        delivery = TranscriptDelivery(
            configuration: configuration, store: harness.store, tracker: tracker, now: now)
        let earcons = earcons
        speech = SpeechOutput(
            audio: audio, local: local, configuration: speechConfiguration,
            errorEarcon: { earcons.update { $0 += 1 } })
        lastReply = LastReplyStore(directory: harness.state)
        speaker = ReplySpeaker(tracker: tracker, speech: speech, lastReply: lastReply, now: now)
        let speaker = speaker
        let stream = await speaker.events()
        let recorded = recorded
        recorderTask = Task {
            for await event in stream { recorded.update { $0.append(event) } }
        }
        speakerTask = Task { await speaker.run() }
        await tracker.attach(node: harness.nodeSession)
        await tracker.attach(operator: harness.operatorSession)
        await delivery.attach(gatewayKey: harness.gatewayKey, node: harness.nodeSession)
        await delivery.attach(operator: harness.operatorSession)
        await speech.attach(operator: harness.operatorSession)
        let delivery = delivery
        await speech.setInterruptionHandler { seconds in await delivery.recordInterruption(afterSeconds: seconds) }
        // Give the speaker loop its subscription before anything is tracked.
        try? await GatewayHarness.wait("speaker subscribed") { await self.tracker.subscriberCount > 0 }
    }

    var earconCount: Int { earcons.value }

    /// Every speaker event so far.
    var events: [ReplySpeaker.Event] { recorded.value }

    /// The `number`-th speaker event (1-based) matching `predicate`, waiting up to `timeout`.
    func event(
        number: Int = 1, timeout: Duration = .seconds(30), _ predicate: @escaping @Sendable (ReplySpeaker.Event) -> Bool
    ) async throws -> ReplySpeaker.Event {
        var found: ReplySpeaker.Event?
        _ = await eventually(within: timeout) {
            let matches = events.filter(predicate)
            if matches.count >= number { found = matches[number - 1] }
            return found != nil
        }
        if let found { return found }
        throw HarnessError(description: "speaker event \(number) not seen within \(timeout); saw \(events)")
    }

    func stop() async {
        speakerTask.cancel()
        recorderTask.cancel()
        await delivery.detach()
        await harness.stop()
    }
}
