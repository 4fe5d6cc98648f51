import ClawTalkAudio
import ClawTalkTesting
import Foundation
import Testing

@Suite struct LevelMeterTests {
    @Test(arguments: [
        // samples, rms, peak, rms dBFS
        ([Int16](), 0.0, 0.0, LevelMeter.silenceFloor),
        ([0, 0, 0], 0.0, 0.0, LevelMeter.silenceFloor),
        ([Int16.min, Int16.min], 1.0, 1.0, 0.0),
        ([16384, -16384], 0.5, 0.5, -6.0206),
        ([3277, -3277, 3277, -3277], 0.1, 0.1, -20.0),
        ([0, 0, 0, 32767], 0.5, 1.0, -6.0206),
    ])
    func measuresBlocks(samples: [Int16], rms: Double, peak: Double, dBFS: Double) {
        #expect(abs(LevelMeter.rms(samples) - rms) < 1e-3)
        #expect(abs(LevelMeter.peak(samples) - peak) < 1e-3)
        #expect(abs(LevelMeter.rmsDBFS(samples) - dBFS) < 1e-2)
        let level = LevelMeter.measure(samples)
        #expect(abs(level.rms - LevelMeter.rms(samples)) < 1e-12)
        #expect(level.peak == LevelMeter.peak(samples))
        #expect(abs(level.dBFS - dBFS) < 1e-2)
    }

    @Test func sineIsThreeDecibelsBelowItsPeak() {
        let sine = tone(frequency: 1000, sampleRate: 16000, seconds: 0.1, amplitude: 1.0)
        let level = LevelMeter.measure(sine)
        #expect(abs(level.dBFS - -3.0103) < 0.01)
        #expect(abs(level.peakDBFS) < 0.01)
    }

    @Test func dBFSIsClampedAtTheFloor() {
        #expect(LevelMeter.dBFS(0) == LevelMeter.silenceFloor)
        #expect(LevelMeter.dBFS(1e-12) == LevelMeter.silenceFloor)
        #expect(abs(LevelMeter.dBFS(0.001) - -60) < 1e-9)
    }
}
