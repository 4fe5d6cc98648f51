import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTesting
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
            calls.locked {
                $0.append(Call(sequence: frame.sequence, delayNanoseconds: now - frame.timestampNanoseconds))
            }
            return level.locked { $0 }
        }

        func captureEnded() { ended.wrappingAdd(1, ordering: .relaxed) }

        var count: Int { calls.locked { $0.count } }
    }

    @Test("an idle consumer gets its frames read in 100 ms blocks, all of them, in order; a busy one frame by frame")
    func idleBlocks() async throws {
        let backend = FakeCaptureBackend()
        let engine = CaptureEngine(configuration: CaptureEngineTests.configuration(), backend: backend)
        let recorder = Recorder()
        // 20 ms frames at 16 kHz are 320 samples; a 100 ms block is 1600.
        let lastReads = { (size: Int) in
            let reads = backend.readSizes.suffix(10)
            return reads.count == 10 && reads.allSatisfy { $0 == size }
        }
        // Idle: the consumer answers a level for every frame.
        recorder.level.locked { $0 = 0.5 }
        engine.attach(recorder)
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { recorder.count >= 150 && lastReads(1600) })
        // Busy: every frame is read on its own again.
        recorder.level.locked { $0 = nil }
        let seen = recorder.count
        #expect(await eventually(within: .seconds(30)) { recorder.count >= seen + 50 && lastReads(320) })
        engine.stop()
        let calls = recorder.calls.locked { $0 }
        #expect(calls.map(\.sequence) == Array(0..<UInt64(calls.count)), "every frame, in order")
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
        let calls = recorder.calls.locked { $0 }
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
