import Foundation
import Testing

@testable import ClawTalkSpeech

/// Checks of the frontend's building blocks against plain floating-point math (independent of
/// the reference package: these say the pieces compute what they claim, the fixture tests say
/// they round like the reference).
@Suite struct FixedPointRealFFTTests {
    @Test(arguments: [16, 128, 512])
    func transformMatchesAFloatingPointDFT(size: Int) {
        var generator = SystemRandomNumberGenerator()
        let input = (0..<size).map { _ in Int16.random(in: -8000...8000, using: &generator) }
        let fft = FixedPointRealFFT(size: size)
        var real = [Int16](repeating: 0, count: size / 2 + 1)
        var imag = [Int16](repeating: 0, count: size / 2 + 1)
        input.withUnsafeBufferPointer { input in
            real.withUnsafeMutableBufferPointer { real in
                imag.withUnsafeMutableBufferPointer { imag in
                    fft.transform(input, outputReal: real, outputImag: imag)
                }
            }
        }
        var worst = 0.0
        for bin in 0...(size / 2) {
            var expectedReal = 0.0
            var expectedImag = 0.0
            for (index, sample) in input.enumerated() {
                let phase = -2 * Double.pi * Double(bin * index) / Double(size)
                expectedReal += Double(sample) * cos(phase)
                expectedImag += Double(sample) * sin(phase)
            }
            // The fixed-point transform is scaled by 1/size.
            worst = max(worst, abs(Double(real[bin]) - expectedReal / Double(size)))
            worst = max(worst, abs(Double(imag[bin]) - expectedImag / Double(size)))
        }
        // Rounding at every stage costs a few units at most.
        #expect(worst <= 4, "size \(size): worst bin error \(worst)")
    }

    @Test func roundedSquareRootRoundsToNearest() {
        var generator = SystemRandomNumberGenerator()
        var values: [UInt64] = [0, 1, 2, 3, 4, 6, 7, 0xFFFF_0000, 1 << 32, 1 << 58]
        values += (0..<1000).map { _ in UInt64.random(in: 0...(1 << 40), using: &generator) }
        for value in values {
            let root = UInt64(MelFilterbank.roundedSquareRoot(value))
            // root is the integer nearest to √value: (root − ½)² ≤ value < (root + ½)².
            let upper = 4 * value < (2 * root + 1) * (2 * root + 1)
            let lower = root == 0 || (2 * root - 1) * (2 * root - 1) <= 4 * value
            #expect(upper && lower, "√\(value) → \(root)")
        }
        // Below 2³² the result saturates at 16 bits, as in the reference.
        #expect(MelFilterbank.roundedSquareRoot(0xFFFF_FFFF) == 0xFFFF)
    }

    @Test func logScaleFollowsTheNaturalLogarithm() {
        let scale = LogScale(configuration: .microWakeWord, correctionBits: 0)
        let inputs: [UInt32] = [0, 1, 2, 3, 10, 100, 1000, 12345, 1 << 20, 0x7FFF_FFFF]
        var signal = inputs
        var output = [UInt16](repeating: 0, count: inputs.count)
        signal.withUnsafeMutableBufferPointer { signal in
            output.withUnsafeMutableBufferPointer { scale.apply(signal, output: $0) }
        }
        #expect(output[0] == 0 && output[1] == 0)
        for (input, value) in zip(inputs, output).dropFirst(2) {
            // 64 × ln(x), within one unit.
            #expect(abs(Double(value) - 64 * log(Double(input))) <= 1, "ln(\(input))")
        }
    }

    @Test func pcanGainFollowsThePowerLaw() {
        let control = PCANGainControl(configuration: .microWakeWord, correctionBits: 3)
        // gain(n) = 2^21 · (n / 2^7 + 80)^−0.95, from a piecewise quadratic table.
        for noise: UInt32 in [0, 1, 2, 3, 100, 5000, 1 << 16, 1 << 24, 3 << 29] {
            let expected = 2_097_152 * pow(Double(noise) / 128 + 80, -0.95)
            let actual = Double(control.gain(forNoise: noise))
            #expect(abs(actual - expected) <= max(2, expected * 0.01), "noise \(noise): \(actual) vs \(expected)")
        }
    }
}
