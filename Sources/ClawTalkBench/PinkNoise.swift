import Foundation

/// Deterministic pink (1/f) noise for the benchmark's noisy condition (benchmarks.md §4.3),
/// generated in-process from a seed so every run mixes exactly the same noise.
///
/// Voss–McCartney: 16 rows of uniform white noise, row `k` redrawn every 2^k samples (the row
/// given by the number of trailing zeros of the sample counter), summed with one fresh white
/// value per sample; the random numbers come from SplitMix64. The level is set by the caller
/// (``mix(_:into:snrDB:signalRange:)`` scales it to a signal-to-noise ratio).
struct PinkNoise {
    private var state: UInt64
    private var rows = [Double](repeating: 0, count: 16)
    private var rowSum = 0.0
    private var counter: UInt64 = 0

    /// A generator; equal seeds give equal noise.
    init(seed: UInt64) {
        state = seed
        for index in rows.indices {
            rows[index] = uniform()
            rowSum += rows[index]
        }
    }

    /// The next `count` samples (zero mean, unscaled: RMS about 1.2).
    mutating func samples(_ count: Int) -> [Double] {
        var output = [Double](repeating: 0, count: count)
        for index in 0..<count {
            counter &+= 1
            let row = min(counter.trailingZeroBitCount, rows.count - 1)
            rowSum -= rows[row]
            rows[row] = uniform()
            rowSum += rows[row]
            output[index] = (rowSum + uniform()) / 4
        }
        return output
    }

    /// Adds noise to `clean` so that the power of `clean[signalRange]` over the noise's power is
    /// `snrDB` decibels; samples are clamped to 16 bits.
    static func mix(_ noise: [Double], into clean: [Int16], snrDB: Double, signalRange: Range<Int>) -> [Int16] {
        precondition(noise.count >= clean.count, "not enough noise")
        let range = signalRange.isEmpty ? 0..<clean.count : signalRange
        let signalPower = meanSquare(clean[range].lazy.map(Double.init))
        let noisePower = meanSquare(noise.prefix(clean.count))
        guard signalPower > 0, noisePower > 0 else { return clean }
        let gain = (signalPower / noisePower / pow(10, snrDB / 10)).squareRoot()
        return zip(clean, noise).map { sample, value in
            Int16(max(-32768, min(32767, (Double(sample) + gain * value).rounded())))
        }
    }

    private static func meanSquare<S: Sequence>(_ values: S) -> Double where S.Element == Double {
        var sum = 0.0
        var count = 0
        for value in values {
            sum += value * value
            count += 1
        }
        return count == 0 ? 0 : sum / Double(count)
    }

    /// SplitMix64 → uniform in [-1, 1).
    private mutating func uniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 52) - 1
    }
}
