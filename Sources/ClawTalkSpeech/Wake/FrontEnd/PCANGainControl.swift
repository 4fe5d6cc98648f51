import Foundation

/// Per-channel energy normalisation (PCAN) for ``MicroFrontend``: each channel is multiplied by
/// a gain `2^gainBits · (noise + offset)^−strength` of its noise estimate, then passed through a
/// soft "shrink" (quadratic below 2, linear above, in 12-bit SNR units; 6 output bits).
///
/// The gain function is read from a table: exact values at noise 0, 1 and 2, and for every octave
/// `[2^(k−1), 2^k)` above that a quadratic through the octave's start, middle and end, evaluated
/// with a 10-bit fraction (the "wide dynamic function" of the reference frontend).
struct PCANGainControl {
    /// Fixed-point bits of the signal-to-noise value.
    static let snrBits = 12
    /// Fixed-point bits of the output.
    static let outputBits = 6
    /// Octaves the gain table covers (all of UInt32).
    private static let octaves = 32

    /// Gains at noise 0, 1 and 2.
    private let smallGains: [Int16]
    /// Per octave k (index k − 2, k = 2...32): value at the start and the two quadratic terms.
    private let octaveStart: [Int16]
    private let octaveLinear: [Int16]
    private let octaveQuadratic: [Int16]
    /// Right shift from gain × signal to SNR units.
    private let snrShift: UInt64

    /// Tables for `configuration`; `correctionBits` is the frontend's FFT-size correction
    /// (log2(FFT size) − 1 − 6), which is also the noise estimate's extra scaling.
    init(configuration: MicroFrontendConfiguration, correctionBits: Int) {
        let shift = configuration.pcanGainBits - correctionBits - Self.snrBits
        precondition((0..<64).contains(shift), "PCAN gain bits too small for this FFT size")
        snrShift = UInt64(shift)
        let inputBits = configuration.noiseSmoothingBits - correctionBits
        precondition((0..<32).contains(inputBits), "noise smoothing bits too small for this FFT size")
        func gain(_ noise: UInt32) -> Int16 {
            let noiseValue = Float(noise) / Float(UInt32(1) << UInt32(inputBits))
            let value =
                Float(UInt32(1) << UInt32(configuration.pcanGainBits))
                * pow(noiseValue + configuration.pcanOffset, -configuration.pcanStrength)
            return value > Float(Int16.max) ? Int16.max : Int16(value + 0.5)
        }
        var starts: [Int16] = []
        var linear: [Int16] = []
        var quadratic: [Int16] = []
        for octave in 2...Self.octaves {
            let x0 = UInt32(1) << UInt32(octave - 1)
            let x1 = x0 + (x0 >> 1)
            let x2 = octave == Self.octaves ? x0 + (x0 - 1) : 2 * x0
            let y0 = gain(x0)
            let toMiddle = Int32(gain(x1)) - Int32(y0)
            let toEnd = Int32(gain(x2)) - Int32(y0)
            let a1 = 4 * toMiddle - toEnd
            starts.append(y0)
            linear.append(Int16(truncatingIfNeeded: a1))
            quadratic.append(Int16(truncatingIfNeeded: toEnd - a1))
        }
        smallGains = [gain(0), gain(1), starts[0]]
        octaveStart = starts
        octaveLinear = linear
        octaveQuadratic = quadratic
    }

    /// The gain for noise estimate `noise`, from the table.
    func gain(forNoise noise: UInt32) -> Int16 {
        if noise <= 2 { return smallGains[Int(noise)] }
        let octave = 32 - noise.leadingZeroBitCount
        let fraction = Int32((octave < 11 ? noise << UInt32(11 - octave) : noise >> UInt32(octave - 11)) & 0x3FF)
        let index = octave - 2
        var result = (Int32(octaveQuadratic[index]) &* fraction) >> 5
        result &+= Int32(octaveLinear[index]) &<< 5
        result &*= fraction
        result = (result &+ (1 << 14)) >> 15
        result &+= Int32(octaveStart[index])
        return Int16(truncatingIfNeeded: result)
    }

    /// Compresses `snr` (12-bit SNR units) to the 6-bit output.
    static func shrink(_ snr: UInt32) -> UInt32 {
        if snr < 2 << snrBits {
            return (snr &* snr) >> UInt32(2 + 2 * snrBits - outputBits)
        }
        return (snr >> UInt32(snrBits - outputBits)) &- (1 << outputBits)
    }

    /// Replaces each `signal` value by its gain-controlled value, with gains from `noise`.
    func apply(_ signal: UnsafeMutableBufferPointer<UInt32>, noise: UnsafeMutableBufferPointer<UInt32>) {
        for channel in signal.indices {
            // A negative table value widens with sign, as in the reference.
            let gain = UInt64(UInt32(bitPattern: Int32(gain(forNoise: noise[channel]))))
            let snr = UInt32(truncatingIfNeeded: (UInt64(signal[channel]) &* gain) >> snrShift)
            signal[channel] = Self.shrink(snr)
        }
    }
}
