import ClawTalkAudio
import ClawTalkDevices
import Foundation
import Synchronization
import Testing

/// The capture engine's synchronous consumer (the front end's seat on the drain thread) and its
/// idle batching.
@Suite("Capture engine: consumer")
struct CaptureConsumerTests {
    /// Records what it was handed and when; answers with `level` (nil = not idle).
    final class Recorder: CaptureFrameConsumer {
        struct Call {
            var sequence: UInt64
            var delayNanoseconds: UInt64
        }

        let level = Mutex<Double?>(nil)
        let calls = Mutex<[Call]>([])
        let ended = Atomic<Int>(0)

        func consume(_ frame: CapturedFrame) -> Double? {
            let now = MonotonicTime.nanoseconds()
            calls.withLock {
                $0.append(Call(sequence: frame.sequence, delayNanoseconds: now - frame.timestampNanoseconds))
            }
            return level.withLock { $0 }
        }

        func captureEnded() { ended.wrappingAdd(1, ordering: .relaxed) }

        var count: Int { calls.withLock { $0.count } }
    }

    @Test("an idle consumer gets quiet frames in batches, all of them, in order; stop ends it once")
    func idleBatches() async throws {
        let engine = CaptureEngine(configuration: CaptureEngineTests.configuration(), backend: FakeCaptureBackend())
        let recorder = Recorder()
        // The fake's frames are at 0.25 full scale: quieter than 0.5, so the consumer is idle.
        recorder.level.withLock { $0 = 0.5 }
        engine.attach(recorder)
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { recorder.count >= 150 })
        engine.stop()
        let calls = recorder.calls.withLock { $0 }
        #expect(calls.map(\.sequence) == Array(0..<UInt64(calls.count)), "every frame, in order")
        // Batched: a frame waited for the next 100 ms drain (one frame per 5 ms here); handed over
        // one by one, none would wait that long on an idle machine.
        let longest = calls.map(\.delayNanoseconds).max() ?? 0
        #expect(longest >= 40_000_000, "longest wait \(longest / 1_000_000) ms")
        #expect(recorder.ended.load(ordering: .relaxed) == 1)
        engine.stop()
        #expect(recorder.ended.load(ordering: .relaxed) == 1)
    }

    @Test("a frame read from a backlog is stamped when it was captured, not when the late read returned")
    func backlogStamps() async throws {
        let backend = FakeCaptureBackend()
        let engine = CaptureEngine(configuration: CaptureEngineTests.configuration(), backend: backend)
        let recorder = Recorder()
        engine.attach(recorder)
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { recorder.count >= 20 })
        let before = recorder.count
        backend.update { $0.backlogNanoseconds = 300_000_000 }
        #expect(await eventually(within: .seconds(30)) { recorder.count >= before + 100 })
        engine.stop()
        let calls = recorder.calls.withLock { $0 }
        // Not idle: each frame is handed over as it is read, so without the backlog its stamp
        // would be a few ms old; with it, at least the 300 ms the stream still holds.
        let early = calls.prefix(before).map(\.delayNanoseconds).max() ?? 0
        let late = calls.suffix(20).map(\.delayNanoseconds).min() ?? 0
        #expect(early < 300_000_000, "before: \(early / 1_000_000) ms")
        #expect(late >= 300_000_000, "with the backlog: \(late / 1_000_000) ms")
    }

    @Test("detaching ends the consumer and frames go on to the streams; a stopped engine ends a new one at once")
    func detach() async throws {
        let engine = CaptureEngine(configuration: CaptureEngineTests.configuration(), backend: FakeCaptureBackend())
        let recorder = Recorder()
        let collector = FrameCollector(engine.frames())
        engine.attach(recorder)
        engine.attach(recorder)
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { recorder.count >= 10 })
        engine.detach(recorder)
        #expect(recorder.ended.load(ordering: .relaxed) == 1)
        let seen = collector.count
        #expect(await eventually(within: .seconds(30)) { collector.count >= seen + 10 })
        engine.stop()
        let late = Recorder()
        engine.attach(late)
        #expect(late.ended.load(ordering: .relaxed) == 1)
        #expect(late.count == 0)
        #expect(recorder.ended.load(ordering: .relaxed) == 1, "ended once, not again at stop")
    }
}
