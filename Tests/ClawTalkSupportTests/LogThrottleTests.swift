import Synchronization
import Testing

@testable import ClawTalkSupport

@Suite("Log throttle")
struct LogThrottleTests {
    /// Hand-moved monotonic time.
    final class FakeTime: Sendable {
        private let value = Mutex(Duration.zero)
        var now: Duration { value.locked { $0 } }
        func advance(by d: Duration) { value.locked { $0 += d } }
    }

    @Test func admitsOncePerInterval() {
        let time = FakeTime()
        let throttle = LogThrottle(now: { time.now })
        #expect(throttle.admit(key: "k", every: .seconds(1)) == .emit(suppressed: 0))
        #expect(throttle.admit(key: "k", every: .seconds(1)) == .suppress)
        time.advance(by: .milliseconds(999))
        #expect(throttle.admit(key: "k", every: .seconds(1)) == .suppress)
        #expect(throttle.admit(key: "other", every: .seconds(1)) == .emit(suppressed: 0))
        time.advance(by: .milliseconds(1))
        #expect(throttle.admit(key: "k", every: .seconds(1)) == .emit(suppressed: 2))
        #expect(throttle.admit(key: "k", every: .seconds(1)) == .suppress)
    }

    @Test func throttledLoggerWritesOneLinePerIntervalAndCountsDrops() {
        let time = FakeTime()
        let sink = RecordingLogSink()
        let logger = Logger(
            category: "voicewake.runtime", minimumLevel: .debug, sink: sink, throttle: LogThrottle(now: { time.now }))
        let tap = logger.throttled(key: "tap", every: .seconds(1))
        for _ in 0..<10 {
            tap.debug("wake.tap", ["rms": 0.1])
            time.advance(by: .milliseconds(150))
        }
        // t = 0 emits, t = 1.05 s emits (6 dropped in between); t up to 1.35 s suppressed.
        #expect(sink.records.count == 2)
        #expect(sink.records[0].fields["suppressed"] == nil)
        #expect(sink.records[1].fields["suppressed"] == .int(6))
        // The unthrottled logger and other keys are unaffected.
        logger.debug("wake.other")
        logger.throttled(key: "other", every: .seconds(1)).debug("wake.other2")
        #expect(sink.events.suffix(2) == ["wake.other", "wake.other2"])
    }

    @Test func keysAreScopedByCategory() {
        let time = FakeTime()
        let sink = RecordingLogSink()
        let root = Logger(category: "audio", sink: sink, throttle: LogThrottle(now: { time.now }))
        root.child(category: "capture").throttled(key: "drops", every: .seconds(10)).info("drops")
        root.child(category: "playback").throttled(key: "drops", every: .seconds(10)).info("drops")
        #expect(sink.records.map(\.category) == ["audio.capture", "audio.playback"])
    }

    @Test func filteredLevelsDoNotConsumeTheInterval() {
        let time = FakeTime()
        let sink = RecordingLogSink()
        let logger = Logger(category: "c", minimumLevel: .info, sink: sink, throttle: LogThrottle(now: { time.now }))
        let throttled = logger.throttled(key: "k", every: .seconds(1))
        throttled.debug("below.level")
        throttled.info("first.visible")
        #expect(sink.events == ["first.visible"])
    }
}
