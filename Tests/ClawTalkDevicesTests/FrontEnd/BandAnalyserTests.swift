import ClawTalkAudio
import Foundation
import Testing

@testable import ClawTalkDevices

/// ``BandAnalyser``: the band levels of the double-talk test's spectral view.
@Suite("Front end: band levels")
struct BandAnalyserTests {
    /// `seconds` of a sine at `hertz` with RMS `rms` (full scale 1.0), 16 kHz.
    private func sine(hertz: Double, rms: Double, samples: Int) -> [Int16] {
        (0..<samples).map { index in
            Int16(rms * 2.squareRoot() * 32767 * sin(2 * Double.pi * hertz * Double(index) / 16000))
        }
    }

    @Test("a sine's level lands in its band, at its RMS, for 10 ms and 20 ms frames alike", arguments: [160, 320])
    func aSineLandsInItsBand(frameSamples: Int) {
        let analyser = BandAnalyser(frameSamples: frameSamples, sampleRate: 16000)
        for (hertz, band) in [(220.0, 0), (900.0, 2), (3000.0, 4), (6000.0, 5)] {
            let levels = sine(hertz: hertz, rms: 0.1, samples: frameSamples).withUnsafeBufferPointer {
                analyser.levels($0)
            }
            #expect(abs(levels[band] - 0.1) < 0.015, "\(hertz) Hz in \(frameSamples) samples: \(levels)")
            for other in 0..<BandLevels.count where abs(other - band) > 1 {
                #expect(levels[other] < 0.01, "\(hertz) Hz leaks into band \(other): \(levels)")
            }
        }
    }

    @Test("silence has no level; the unused lanes stay silent")
    func silenceIsSilent() {
        let analyser = BandAnalyser(frameSamples: 320, sampleRate: 16000)
        let levels = [Int16](repeating: 0, count: 320).withUnsafeBufferPointer { analyser.levels($0) }
        #expect(levels == BandLevels())
        #expect(BandLevels(SIMD8(repeating: 1)).values[BandLevels.count] == 0)
    }
}
