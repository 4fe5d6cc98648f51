import ClawTalkSupport
import ClawTalkTalk
import Testing

@testable import ClawTalkNode

/// After the service's stop closed the microphone, nothing opens it again: a capture or wake's
/// frames asked for then end with `CancellationError` (the service is stopping), not with a
/// new capture engine and a microphone error in the log.
@Suite("The microphone after the service's stop (Microphone)")
struct MicrophoneStopTests {
    @Test func capturesAndWakeFramesAfterTheStopAreCancelledWithoutOpeningAnything() async {
        let log = RecordingLogSink()
        var mic = MicSettings()
        // A source no sound server has: opening it would fail with an error, not a cancellation.
        mic.device = "clawtalk-test-no-such-source"
        let capturing = Microphone(mic: mic, logger: Logger(category: "test", sink: log))
        capturing.stop()
        await #expect(throws: CancellationError.self) { _ = try await capturing.begin() }
        await #expect(throws: CancellationError.self) { _ = try await capturing.wakeFrames() }
        #expect(capturing.captureStats == nil, "no engine was made")
        #expect(!log.events.contains("ptt.capture.unavailable"), "\(log.events)")
    }
}
