import Testing

@testable import ClawTalkBench

@Suite struct OnsetDetectorTests {
    @Test func findsTheFirstLoudSampleOncePerBurst() {
        var detector = OnsetDetector(threshold: 1000, quietSamples: 400)
        var frame = [Int16](repeating: 0, count: 320)
        frame[37] = 1500
        frame[38] = -2000
        #expect(detector.onset(in: frame) == 37)
        // 286 quiet samples since the burst: not enough to count as a new one.
        var next = [Int16](repeating: 0, count: 320)
        next[5] = 3000
        #expect(detector.onset(in: next) == nil)
    }

    @Test func rearmsAfterEnoughQuiet() {
        var detector = OnsetDetector(threshold: 1000, quietSamples: 400)
        var frame = [Int16](repeating: 0, count: 320)
        frame[0] = -1000
        #expect(detector.onset(in: frame) == 0)
        // 319 quiet samples so far: one more frame of quiet reaches 639 ≥ 400.
        #expect(detector.onset(in: [Int16](repeating: 999, count: 320)) == nil)
        var loud = [Int16](repeating: 0, count: 320)
        loud[200] = 1200
        #expect(detector.onset(in: loud) == 200)
    }

    @Test func quietFramesHaveNoOnset() {
        var detector = OnsetDetector(threshold: OnsetDetector.minus40dBFS, quietSamples: 10)
        #expect(detector.onset(in: [Int16](repeating: 300, count: 160)) == nil)
        #expect(OnsetDetector.minus40dBFS == 328)
    }
}
