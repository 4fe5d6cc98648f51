import Foundation

/// Fixed-point natural logarithm for ``MicroFrontend``: `round(ln(x) · 2^shift)`, saturated to
/// 16 bits, with 0 for inputs 0 and 1.
///
/// log2 is the position of the top bit plus a 16-bit fraction; the fraction's mantissa `m` in
/// [0, 1) is corrected by `log2(1 + m) − m`, read from a 128-segment table with linear
/// interpolation, and the sum is multiplied by ln 2 in 16-bit fixed point.
struct LogScale {
    /// Fixed-point bits of the log2 fraction.
    private static let fractionBits: UInt32 = 16
    /// Table segments (a power of two).
    private static let segmentBits: UInt32 = 7
    /// `ln 2` in 16-bit fixed point.
    private static let ln2 = UInt64((log(2.0) * 65536).rounded())
    /// `log2(1 + i/128) − i/128` in 16-bit fixed point, i = 0...128, plus a zero guard entry.
    private static let correction: [Int32] = {
        let segments = 1 << Int(segmentBits)
        let values = (0...segments).map { index -> Int32 in
            let mantissa = Double(index) / Double(segments)
            return Int32(((log2(1 + mantissa) - mantissa) * 65536).rounded())
        }
        return values + [0]
    }()

    /// Output bits below the natural-log unit.
    let scaleShift: UInt32
    /// Whether the logarithm is taken (otherwise values are only clamped).
    let enabled: Bool
    /// Left shift (or right, if negative) applied before the logarithm.
    let correctionBits: Int

    /// The scale for `configuration`, with the frontend's FFT-size `correctionBits`.
    init(configuration: MicroFrontendConfiguration, correctionBits: Int) {
        scaleShift = UInt32(configuration.logScaleShift)
        enabled = configuration.logEnabled
        self.correctionBits = correctionBits
    }

    /// Writes the scaled values of `signal` into `output`.
    func apply(_ signal: UnsafeMutableBufferPointer<UInt32>, output: UnsafeMutableBufferPointer<UInt16>) {
        Self.correction.withUnsafeBufferPointer { table in
            for channel in signal.indices {
                var value = signal[channel]
                if enabled {
                    value =
                        correctionBits < 0 ? value >> UInt32(-correctionBits) : value &<< UInt32(correctionBits)
                    value = value > 1 ? Self.logarithm(value, scaleShift: scaleShift, table: table) : 0
                }
                output[channel] = UInt16(min(value, 0xFFFF))
            }
        }
    }

    /// `ln(x) · 2^scaleShift`, rounded, for x ≥ 2.
    static func logarithm(_ x: UInt32, scaleShift: UInt32, table: UnsafeBufferPointer<Int32>) -> UInt32 {
        let integer = UInt32(31 - x.leadingZeroBitCount)
        var fraction = Int32(truncatingIfNeeded: Int64(x) - (Int64(1) << Int64(integer)))
        fraction =
            integer < fractionBits
            ? fraction &<< Int32(fractionBits - integer) : fraction >> Int32(integer - fractionBits)
        let segment = Int(UInt32(bitPattern: fraction) >> (fractionBits - segmentBits))
        let low = table[segment]
        let high = table[segment + 1]
        let segmentStart = Int32(segment << Int(fractionBits - segmentBits))
        let interpolated = ((high - low) &* (fraction - segmentStart)) >> Int32(fractionBits)
        let log2 = (integer << fractionBits) &+ UInt32(bitPattern: fraction &+ low &+ interpolated)
        let half = UInt64(1) << UInt64(fractionBits - 1)
        let natural = UInt32(truncatingIfNeeded: (ln2 &* UInt64(log2) &+ half) >> UInt64(fractionBits))
        return ((natural &<< scaleShift) &+ UInt32(half)) >> fractionBits
    }
}
