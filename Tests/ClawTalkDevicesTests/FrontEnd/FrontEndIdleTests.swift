import ClawTalkAudio
import ClawTalkDevices
import ClawTalkSupport
import ClawTalkTesting
import Foundation
import Synchronization
import Testing

/// The idle path: after a second without speech, echo or far end the front end skips its APM
/// echo stage for quiet frames and lets the capture engine batch them; anything louder, or far-end
/// audio, ends it at once.
@Suite("Front end: idle")
struct FrontEndIdleTests {
    typealias Fixtures = FrontEndFixtures

    /// Room noise at −70 dBFS: quiet, but not digital silence.
    static func quiet(seconds: Double, seed: UInt64 = 3) -> [Int16] {
        Fixtures.pcm(Fixtures.white(count: Int(seconds * 16000), seed: seed), dBFS: -70)
    }

    @Test("quiet frames skip the echo stage after one second, a loud one does not, and far-end audio ends it")
    func bypass() throws {
        let frontEnd = try AudioFrontEnd(
            settings: FrontEndSettings(stages: ProcessingSettings(noiseSuppression: .moderate)))
        _ = try Fixtures.drive(frontEnd, near: Self.quiet(seconds: 0.9))
        #expect(frontEnd.stats.idleBypassFrames == 0, "not idle before a second has passed")
        _ = try Fixtures.drive(frontEnd, near: Self.quiet(seconds: 1.1, seed: 4), origin: 1_900_000_000)
        let idle = frontEnd.stats.idleBypassFrames
        #expect(idle >= 40 && idle <= 55, "bypassed after the first second: \(idle)")
        // A tone burst: processed (not bypassed), and the idle clock starts over.
        let tone = TestSignals.tone(frequency: 440, seconds: 0.2, sampleRate: 16000, amplitude: 0.3)
        let loud = try Fixtures.drive(frontEnd, near: tone, origin: 3_000_000_000)
        #expect(frontEnd.stats.idleBypassFrames == idle)
        #expect(loud.contains { $0.energyGateSpeech })
        _ = try Fixtures.drive(frontEnd, near: Self.quiet(seconds: 0.8, seed: 5), origin: 3_200_000_000)
        #expect(frontEnd.stats.idleBypassFrames == idle, "the second of quiet starts after the tone")
        _ = try Fixtures.drive(frontEnd, near: Self.quiet(seconds: 0.6, seed: 6), origin: 4_000_000_000)
        let again = frontEnd.stats.idleBypassFrames
        #expect(again > idle)
        // Far-end audio waiting: processed through the canceller, not bypassed.
        let far = TestSignals.tone(frequency: 300, seconds: 0.01, sampleRate: 16000, amplitude: 0.3)
        far.withUnsafeBufferPointer { frontEnd.pushFarEnd($0, timestampNanoseconds: 4_600_000_000) }
        _ = try Fixtures.drive(frontEnd, near: Self.quiet(seconds: 0.1, seed: 7), origin: 4_600_000_000)
        #expect(frontEnd.stats.idleBypassFrames == again)
        #expect(frontEnd.stats.farEndFed >= 1)
    }

    @Test("bypassed frames lose their DC offset, as the APM's high-pass filter would take it out")
    func bypassRemovesDC() throws {
        let frontEnd = try AudioFrontEnd(settings: FrontEndSettings())
        let noise = Self.quiet(seconds: 3)
        let offset = noise.map { Int16(clamping: Int($0) + 200) }
        let frames = try Fixtures.drive(frontEnd, near: offset)
        #expect(frontEnd.stats.idleBypassFrames > 50)
        let tail = frames.suffix(25).flatMap(\.aec)
        let mean = Double(tail.reduce(0) { $0 + Int($1) }) / Double(tail.count)
        #expect(abs(mean) < 20, "mean of the last 0.5 s: \(mean) (input offset 200)")
    }

    @Test("the front end on a capture engine's drain thread gets every frame, in order, and ends with it")
    func onEngine() async throws {
        let backend = FakeCaptureBackend()
        let engine = CaptureEngine(configuration: CaptureEngineTests.configuration(), backend: backend)
        // The fake reads 4 × faster than real time: a subscriber buffer of 80 s of frames, so that
        // a collector starved on a busy machine loses none (the default 0.5 s drops the oldest).
        let frontEnd = try AudioFrontEnd(
            settings: FrontEndSettings(stages: ProcessingSettings(echoCancellation: .off), streamBufferFrames: 4_000))
        let collector = FrontEndCollector(frontEnd.frames())
        try frontEnd.start(on: engine)
        try frontEnd.start(on: engine)
        try engine.start()
        #expect(await eventually(within: .seconds(30)) { collector.count >= 50 })
        engine.stop()
        await collector.waitUntilFinished()
        let sequences = collector.frames.map(\.sequence)
        #expect(sequences == Array(0..<UInt64(sequences.count)))
        #expect(frontEnd.stats.frames >= sequences.count)
    }
}

/// Collects a front-end frame stream on a task.
final class FrontEndCollector: Sendable {
    private final class Storage: Sendable {
        let frames = Mutex<[FrontEndFrame]>([])
    }

    private let storage = Storage()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<FrontEndFrame>) {
        let storage = storage
        task = Task.detached {
            for await frame in stream { storage.frames.locked { $0.append(frame) } }
        }
    }

    var frames: [FrontEndFrame] { storage.frames.locked { $0 } }
    var count: Int { storage.frames.locked { $0.count } }

    func waitUntilFinished() async { await task.value }
}
