import ClawTalkAudio
import Foundation

/// Measures ``BandLevels`` of frames of one length: the power spectrum (``PowerSpectrum``) summed
/// over each band's bins and scaled by the window's energy, so that frames of different lengths
/// (the 10 ms far-end frames, the 20 ms capture frames) give comparable levels.
///
/// Allocates in `init` only. Not Sendable: one owner uses it from one thread at a time.
final class BandAnalyser {
    /// Samples per analysed frame.
    let frameSamples: Int
    private let spectrum: PowerSpectrum
    /// The first and one-past-last bin of each band.
    private let lowerBins: SIMD8<Int>
    private let upperBins: SIMD8<Int>
    /// 2 ÷ (FFT size × Σ window²): one-sided power to the mean square of the band's signal.
    private let scale: Double

    /// An analyser for frames of `frameSamples` samples at `sampleRate` Hz.
    init(frameSamples: Int, sampleRate: Int) {
        self.frameSamples = frameSamples
        spectrum = PowerSpectrum(frameSamples: frameSamples)
        let width = spectrum.binWidth(sampleRate: sampleRate)
        let lastBin = spectrum.size / 2
        var lower = SIMD8<Int>.zero
        var upper = SIMD8<Int>.zero
        for band in 0..<BandLevels.count {
            let low = min(Int((BandLevels.edges[band] / width).rounded(.up)), lastBin)
            let high = min(Int((BandLevels.edges[band + 1] / width).rounded(.up)), lastBin + 1)
            lower[band] = low
            upper[band] = max(low + 1, high)
        }
        lowerBins = lower
        upperBins = upper
        var windowEnergy = 0.0
        for index in 0..<frameSamples {
            let window = 0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(frameSamples - 1))
            windowEnergy += window * window
        }
        scale = 2 / (Double(spectrum.size) * max(windowEnergy, 1e-12))
    }

    /// The band levels of `frame` (exactly ``frameSamples`` samples).
    func levels(_ frame: UnsafeBufferPointer<Int16>) -> BandLevels {
        spectrum.compute(frame)
        var levels = BandLevels()
        for band in 0..<BandLevels.count {
            var sum = 0.0
            for bin in lowerBins[band]..<upperBins[band] { sum += spectrum.power[bin] }
            levels[band] = (sum * scale).squareRoot()
        }
        return levels
    }
}
