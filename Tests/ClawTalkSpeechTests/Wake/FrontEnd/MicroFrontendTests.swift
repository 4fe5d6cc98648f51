import ClawTalkSpeech
import Foundation
import Testing

@Suite struct MicroFrontendTests {
    /// Largest per-value difference from pymicro-features accepted (uint16 units, before the
    /// 0.0390625 scale); the implementation is expected to be exact.
    static let maximumError = 0
    /// Share of values that must match the reference exactly.
    static let minimumExactShare = 1.0

    @Test(arguments: ["okay-nabu", "pink-noise"])
    func featuresMatchTheReference(clip: String) throws {
        let fixture = try WakeFixture(clip)
        let frontend = MicroFrontend()
        let frames = frontend.process(fixture.samples)
        #expect(frames.count == fixture.features.count)
        #expect(frames.allSatisfy { $0.count == 40 })
        let error = FeatureError(frames, fixture.features)
        print("MicroFrontend vs pymicro-features on \(clip): \(error)")
        #expect(error.maximum <= Self.maximumError, "\(error)")
        #expect(error.exactShare >= Self.minimumExactShare, "\(error)")
        // The clips are not trivial: the features move.
        #expect(Set(fixture.features.joined()).count > 100)
    }

    @Test func chunkSizesDoNotChangeTheFeatures() throws {
        let samples = Array(try WakeFixture("okay-nabu").samples.prefix(16000 + 1234))
        let whole = MicroFrontend().process(samples)
        #expect(whole.count == (samples.count - 480) / 160 + 1)
        for chunk in [1, 7, 160, 320, 479, 4000] {
            let frontend = MicroFrontend()
            var frames: [[UInt16]] = []
            var start = 0
            while start < samples.count {
                let end = min(start + chunk, samples.count)
                frames += frontend.process(Array(samples[start..<end]))
                start = end
            }
            #expect(frames == whole, "chunk size \(chunk)")
        }
    }

    @Test func framesArriveAfterOneWindowThenEveryStep() {
        let frontend = MicroFrontend()
        var ends: [Int] = []
        let samples = [Int16](repeating: 100, count: 1100)
        samples.withUnsafeBufferPointer { buffer in
            frontend.process(buffer) { frame in
                #expect(frame.count == 40)
                ends.append(frontend.samplesConsumed)
            }
        }
        #expect(ends == [480, 640, 800, 960])
        #expect(frontend.samplesConsumed == 1100)
        #expect(frontend.framesProduced == 4)
    }

    @Test func digitalSilenceGivesZeroFeatures() {
        let frames = MicroFrontend().process([Int16](repeating: 0, count: 4800))
        #expect(frames.count == 28)
        #expect(frames.allSatisfy { $0.allSatisfy { $0 == 0 } })
    }

    @Test func resetStartsOver() throws {
        let samples = Array(try WakeFixture("okay-nabu").samples.prefix(24000))
        let frontend = MicroFrontend()
        let first = frontend.process(samples)
        _ = frontend.process(Array(samples.prefix(1000)))
        frontend.reset()
        #expect(frontend.samplesConsumed == 0)
        #expect(frontend.process(samples) == first)
    }

    @Test func aLouderToneRaisesItsChannel() {
        // 1 kHz tone at two levels: the log-scaled features of the loud one are higher.
        func features(amplitude: Double) -> [UInt16] {
            let tone = (0..<8000).map { Int16(amplitude * sin(2 * Double.pi * 1000 * Double($0) / 16000)) }
            return MicroFrontend().process(tone).last ?? []
        }
        let quiet = features(amplitude: 1000)
        let loud = features(amplitude: 16000)
        let peak = loud.indices.max { loud[$0] < loud[$1] }
        #expect(peak.map { loud[$0] > quiet[$0] } == true)
        // 1 kHz sits in the lower third of the 125–7500 Hz mel range.
        #expect(peak.map { (5...20).contains($0) } == true, "peak channel \(String(describing: peak))")
    }

    @Test func performanceSanity() throws {
        // Real-time factor for 10 s of audio (printed, not asserted; debug builds are slower).
        let clip = try WakeFixture("okay-nabu").samples
        var samples: [Int16] = []
        while samples.count < 160_000 { samples += clip }
        samples = Array(samples.prefix(160_000))
        let frontend = MicroFrontend()
        var frames = 0
        let start = ContinuousClock.now
        samples.withUnsafeBufferPointer { buffer in
            frontend.process(buffer) { _ in frames += 1 }
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        print("MicroFrontend: \(frames) frames for 10 s of audio in \(elapsed), real-time factor \(seconds / 10)")
        #expect(frames == 998)
    }
}
