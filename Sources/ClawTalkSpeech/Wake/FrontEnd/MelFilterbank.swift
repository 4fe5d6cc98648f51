import Foundation

/// Triangular mel-spaced filters over an FFT spectrum, in fixed point, for ``MicroFrontend``.
///
/// Channel edges are equally spaced on the mel scale `1127 · ln(1 + f/700)` between the band
/// limits (computed in single precision, as the reference frontend does). Each FFT bin between
/// the first and the last edge belongs to one channel `c` with a 12-bit weight `w`: it adds
/// `w · energy` to channel `c` and `(1 − w) · energy` to channel `c + 1` (the rising slope of the
/// next filter). A channel's output is the rounded integer square root of its sum, shifted right
/// by the FFT input's scaling shift.
final class MelFilterbank {
    /// Fixed-point bits of the filter weights.
    static let weightBits = 12

    /// Number of output channels.
    let channelCount: Int
    /// First FFT bin used (the DC bin is always excluded).
    let firstBin: Int
    /// One past the last FFT bin used.
    let endBin: Int
    /// Per bin in `firstBin..<endBin`: the accumulator it feeds with its weight.
    private let binChannel: [Int]
    private let binWeight: [UInt64]
    private let binUnweight: [UInt64]
    /// `channelCount + 2` accumulators: index 0 collects the lowest edge's slope and the last
    /// collects the highest edge's; neither is output.
    private let accumulators: UnsafeMutableBufferPointer<UInt64>

    /// Builds the filters for a spectrum of `spectrumSize` bins (FFT size / 2 + 1).
    init(configuration: MicroFrontendConfiguration, spectrumSize: Int) {
        let channels = configuration.channelCount
        channelCount = channels
        func mel(_ frequency: Float) -> Float { 1127 * log1p(frequency / 700) }
        let hzPerBin: Float = 0.5 * Float(configuration.sampleRate) / (Float(spectrumSize) - 1)
        let melLow = mel(configuration.lowerBandLimit)
        let melSpacing = (mel(configuration.upperBandLimit) - melLow) / Float(channels + 1)
        // Upper edge of each of the channels + 1 slopes (the last one is the upper band limit).
        let edges = (0...channels).map { melLow + melSpacing * Float($0 + 1) }
        let first = Int(1.5 + configuration.lowerBandLimit / hzPerBin)
        var channelOfBin: [Int] = []
        var weights: [UInt64] = []
        var unweights: [UInt64] = []
        var bin = first
        let scale = Float(1 << Self.weightBits)
        for channel in 0...channels {
            let lowerEdge = channel == 0 ? melLow : edges[channel - 1]
            while mel(Float(bin) * hzPerBin) <= edges[channel] {
                let weight = (edges[channel] - mel(Float(bin) * hzPerBin)) / (edges[channel] - lowerEdge)
                channelOfBin.append(channel)
                weights.append(UInt64(Int16((weight * scale + 0.5).rounded(.down))))
                unweights.append(UInt64(Int16(((1 - weight) * scale + 0.5).rounded(.down))))
                bin += 1
            }
        }
        precondition(bin < spectrumSize, "the filterbank's upper band limit is above the spectrum")
        firstBin = first
        endBin = bin
        binChannel = channelOfBin
        binWeight = weights
        binUnweight = unweights
        accumulators = .allocate(capacity: channels + 2)
        accumulators.initialize(repeating: 0)
    }

    deinit {
        accumulators.deallocate()
    }

    /// Filters the spectrum (`real`/`imag` bins) into `output` (`channelCount` values):
    /// `round(√Σ weight·|X|²) >> shift`.
    func apply(
        real: UnsafeBufferPointer<Int16>, imag: UnsafeBufferPointer<Int16>, shift: Int,
        output: UnsafeMutableBufferPointer<UInt32>
    ) {
        let sums = accumulators
        for index in sums.indices { sums[index] = 0 }
        binChannel.withUnsafeBufferPointer { channelOfBin in
            binWeight.withUnsafeBufferPointer { weights in
                binUnweight.withUnsafeBufferPointer { unweights in
                    for index in channelOfBin.indices {
                        let bin = firstBin + index
                        let re = Int32(real[bin])
                        let im = Int32(imag[bin])
                        // |X|² wraps in 32 bits and widens with sign, as in the reference.
                        let energy = UInt64(bitPattern: Int64(re &* re &+ im &* im))
                        let channel = channelOfBin[index]
                        sums[channel] &+= weights[index] &* energy
                        sums[channel + 1] &+= unweights[index] &* energy
                    }
                }
            }
        }
        for channel in 0..<channelCount {
            output[channel] = Self.roundedSquareRoot(sums[channel + 1]) >> UInt32(shift)
        }
    }

    /// `√value` rounded to nearest; values below 2³² saturate at 0xFFFF, larger ones at
    /// 0xFFFFFFFF (the reference's 32-bit fast path).
    static func roundedSquareRoot(_ value: UInt64) -> UInt32 {
        guard value != 0 else { return 0 }
        let limit: UInt64 = value >> 32 == 0 ? 0xFFFF : 0xFFFF_FFFF
        var root = min(UInt64(Double(value).squareRoot()), 0xFFFF_FFFF)
        while root * root > value { root -= 1 }
        while root < 0xFFFF_FFFF && (root + 1) * (root + 1) <= value { root += 1 }
        if value - root * root > root && root != limit { root += 1 }
        return UInt32(root)
    }
}
