import Foundation

/// A real-input FFT in 16-bit fixed point, written for ``MicroFrontend``.
///
/// The arithmetic follows the conventions of the fixed-point FFT the TensorFlow Lite Micro
/// frontend uses (kissfft built with 16-bit samples), because microWakeWord models were trained
/// on that frontend's rounding:
/// - twiddle factors are Q15: `floor(0.5 + 32767 · cos/sin(φ))`, computed in double precision;
/// - a product of two Q15 values is rounded: `(a·b + 2¹⁴) >> 15`;
/// - every butterfly first scales its inputs by `⌊32767 / radix⌋ / 2¹⁵` (rounded), so the whole
///   transform is scaled by about `1/N` and cannot overflow for 16-bit input;
/// - every stored intermediate value wraps to 16 bits, as a C `short` would.
///
/// The `N`-point real transform runs as an `N/2`-point complex transform of the even/odd sample
/// pairs, then splits the result with a second set of twiddles. The complex transform is an
/// iterative decimation-in-time FFT with radix-4 stages (and one radix-2 stage when `N/2` is
/// not a power of 4), after a mixed-radix digit-reversal permutation.
final class FixedPointRealFFT {
    /// Real input length (a power of two, at least 8).
    let size: Int
    /// Complex transform length, `size / 2`.
    private let half: Int
    /// Radices, innermost stage first.
    private let radices: [Int]
    /// Where each complex input pair lands before the first stage.
    private let permutation: [Int]
    /// Q15 twiddles of the complex transform: exp(-2πi·k / half).
    private let twiddleReal: [Int16]
    private let twiddleImag: [Int16]
    /// Q15 twiddles of the real-to-complex split: exp(-πi·((k+1)/half + 1/2)).
    private let splitReal: [Int16]
    private let splitImag: [Int16]
    /// Complex work buffer (`half` values each), owned by this object.
    private let workReal: UnsafeMutableBufferPointer<Int16>
    private let workImag: UnsafeMutableBufferPointer<Int16>

    /// Prepares the tables for an FFT of `size` real samples.
    init(size: Int) {
        precondition(size >= 8 && size.nonzeroBitCount == 1, "FFT size must be a power of two ≥ 8")
        let half = size / 2
        self.size = size
        self.half = half
        // Outermost stage first: radix 4 while possible, then one radix 2.
        var outerFirst: [Int] = []
        var rest = half
        while rest % 4 == 0 {
            outerFirst.append(4)
            rest /= 4
        }
        if rest == 2 { outerFirst.append(2) }
        radices = outerFirst.reversed()
        permutation = (0..<half).map { index in
            var position = 0
            var remaining = index
            var span = half
            for radix in outerFirst {
                span /= radix
                position += (remaining % radix) * span
                remaining /= radix
            }
            return position
        }
        func q15(_ value: Double) -> Int16 { Int16((0.5 + 32767 * value).rounded(.down)) }
        let complexPhases = (0..<half).map { -2 * Double.pi * Double($0) / Double(half) }
        twiddleReal = complexPhases.map { q15(cos($0)) }
        twiddleImag = complexPhases.map { q15(sin($0)) }
        let splitPhases = (0..<half / 2).map { -Double.pi * (Double($0 + 1) / Double(half) + 0.5) }
        splitReal = splitPhases.map { q15(cos($0)) }
        splitImag = splitPhases.map { q15(sin($0)) }
        workReal = .allocate(capacity: half)
        workReal.initialize(repeating: 0)
        workImag = .allocate(capacity: half)
        workImag.initialize(repeating: 0)
    }

    deinit {
        workReal.deallocate()
        workImag.deallocate()
    }

    /// Transforms `input` (`size` samples) into bins `0...size/2` of `outputReal`/`outputImag`
    /// (each `size/2 + 1` long), scaled by about `1/size`.
    func transform(
        _ input: UnsafeBufferPointer<Int16>, outputReal: UnsafeMutableBufferPointer<Int16>,
        outputImag: UnsafeMutableBufferPointer<Int16>
    ) {
        precondition(input.count == size && outputReal.count == half + 1 && outputImag.count == half + 1)
        let (real, imag) = (workReal, workImag)
        permutation.withUnsafeBufferPointer { permutation in
            for pair in 0..<half {
                real[permutation[pair]] = input[2 * pair]
                imag[permutation[pair]] = input[2 * pair + 1]
            }
        }
        twiddleReal.withUnsafeBufferPointer { twiddleReal in
            twiddleImag.withUnsafeBufferPointer { twiddleImag in
                var span = 1
                for radix in radices {
                    let stride = half / (radix * span)
                    for block in Swift.stride(from: 0, to: half, by: radix * span) {
                        if radix == 4 {
                            Self.butterfly4(
                                real, imag, base: block, span: span, stride: stride, twiddleReal, twiddleImag)
                        } else {
                            Self.butterfly2(
                                real, imag, base: block, span: span, stride: stride, twiddleReal, twiddleImag)
                        }
                    }
                    span *= radix
                }
            }
        }
        split(real, imag, outputReal: outputReal, outputImag: outputImag)
    }

    // MARK: - Fixed-point helpers

    /// `a · b` in Q15, rounded, wrapped to 16 bits.
    @inline(__always)
    private static func round15(_ product: Int32) -> Int16 {
        Int16(truncatingIfNeeded: (product &+ (1 << 14)) >> 15)
    }

    /// Scales `value` by `⌊32767 / divisor⌋ / 2¹⁵` with rounding.
    @inline(__always)
    private static func scaleDown(_ value: Int16, by divisor: Int32) -> Int16 {
        round15(Int32(value) &* (32767 / divisor))
    }

    /// Complex product (a · w) with Q15 rounding of each component.
    @inline(__always)
    private static func multiply(_ ar: Int16, _ ai: Int16, _ wr: Int16, _ wi: Int16) -> (Int16, Int16) {
        let (ar, ai, wr, wi) = (Int32(ar), Int32(ai), Int32(wr), Int32(wi))
        return (round15(ar &* wr &- ai &* wi), round15(ar &* wi &+ ai &* wr))
    }

    // MARK: - Stages

    /// Combines four interleaved sub-transforms of length `span` starting at `base`.
    @inline(__always)
    private static func butterfly4(
        _ real: UnsafeMutableBufferPointer<Int16>, _ imag: UnsafeMutableBufferPointer<Int16>, base: Int, span: Int,
        stride: Int, _ twiddleReal: UnsafeBufferPointer<Int16>, _ twiddleImag: UnsafeBufferPointer<Int16>
    ) {
        for offset in 0..<span {
            let i0 = base + offset
            let i1 = i0 + span
            let i2 = i1 + span
            let i3 = i2 + span
            let a0r = scaleDown(real[i0], by: 4)
            let a0i = scaleDown(imag[i0], by: 4)
            let t1 = offset * stride
            let t2 = 2 * t1
            let t3 = 3 * t1
            let b1 = multiply(scaleDown(real[i1], by: 4), scaleDown(imag[i1], by: 4), twiddleReal[t1], twiddleImag[t1])
            let b2 = multiply(scaleDown(real[i2], by: 4), scaleDown(imag[i2], by: 4), twiddleReal[t2], twiddleImag[t2])
            let b3 = multiply(scaleDown(real[i3], by: 4), scaleDown(imag[i3], by: 4), twiddleReal[t3], twiddleImag[t3])
            // Even part: a0 ± b2; odd part: b1 ± b3.
            let evenSumR = a0r &+ b2.0
            let evenSumI = a0i &+ b2.1
            let evenDiffR = a0r &- b2.0
            let evenDiffI = a0i &- b2.1
            let oddSumR = b1.0 &+ b3.0
            let oddSumI = b1.1 &+ b3.1
            let oddDiffR = b1.0 &- b3.0
            let oddDiffI = b1.1 &- b3.1
            real[i0] = evenSumR &+ oddSumR
            imag[i0] = evenSumI &+ oddSumI
            real[i2] = evenSumR &- oddSumR
            imag[i2] = evenSumI &- oddSumI
            // Multiplying the odd difference by -i (forward transform).
            real[i1] = evenDiffR &+ oddDiffI
            imag[i1] = evenDiffI &- oddDiffR
            real[i3] = evenDiffR &- oddDiffI
            imag[i3] = evenDiffI &+ oddDiffR
        }
    }

    /// Combines two interleaved sub-transforms of length `span` starting at `base`.
    @inline(__always)
    private static func butterfly2(
        _ real: UnsafeMutableBufferPointer<Int16>, _ imag: UnsafeMutableBufferPointer<Int16>, base: Int, span: Int,
        stride: Int, _ twiddleReal: UnsafeBufferPointer<Int16>, _ twiddleImag: UnsafeBufferPointer<Int16>
    ) {
        for offset in 0..<span {
            let i0 = base + offset
            let i1 = i0 + span
            let a0r = scaleDown(real[i0], by: 2)
            let a0i = scaleDown(imag[i0], by: 2)
            let t = offset * stride
            let b = multiply(scaleDown(real[i1], by: 2), scaleDown(imag[i1], by: 2), twiddleReal[t], twiddleImag[t])
            real[i1] = a0r &- b.0
            imag[i1] = a0i &- b.1
            real[i0] = a0r &+ b.0
            imag[i0] = a0i &+ b.1
        }
    }

    /// Turns the complex transform Z of the even/odd pairs into bins 0...half of the real input:
    /// X[k] = ((Z[k] + Z*[half−k]) + W^k·(Z[k] − Z*[half−k])·(−i)) / 2, with both halves halved first.
    private func split(
        _ real: UnsafeMutableBufferPointer<Int16>, _ imag: UnsafeMutableBufferPointer<Int16>,
        outputReal: UnsafeMutableBufferPointer<Int16>, outputImag: UnsafeMutableBufferPointer<Int16>
    ) {
        let dcEven = Self.scaleDown(real[0], by: 2)
        let dcOdd = Self.scaleDown(imag[0], by: 2)
        outputReal[0] = dcEven &+ dcOdd
        outputImag[0] = 0
        outputReal[half] = dcEven &- dcOdd
        outputImag[half] = 0
        guard half >= 2 else { return }
        for bin in 1...(half / 2) {
            let mirror = half - bin
            let pr = Self.scaleDown(real[bin], by: 2)
            let pi = Self.scaleDown(imag[bin], by: 2)
            let qr = Self.scaleDown(real[mirror], by: 2)
            let qi = Self.scaleDown(0 &- imag[mirror], by: 2)
            let sumR = pr &+ qr
            let sumI = pi &+ qi
            let (tr, ti) = Self.multiply(pr &- qr, pi &- qi, splitReal[bin - 1], splitImag[bin - 1])
            // Sums are halved at full precision (arithmetic shift), then wrapped to 16 bits.
            outputReal[bin] = Int16(truncatingIfNeeded: (Int32(sumR) + Int32(tr)) >> 1)
            outputImag[bin] = Int16(truncatingIfNeeded: (Int32(sumI) + Int32(ti)) >> 1)
            outputReal[mirror] = Int16(truncatingIfNeeded: (Int32(sumR) - Int32(tr)) >> 1)
            outputImag[mirror] = Int16(truncatingIfNeeded: (Int32(ti) - Int32(sumI)) >> 1)
        }
    }
}
