import Foundation

/// Power spectrum of short real frames: Hann window, zero padding to a power of two, an
/// iterative radix-2 FFT. Tables and work buffers are allocated once in `init`; ``compute(_:)``
/// does not allocate.
///
/// Not Sendable: one owner (the speech detector) uses it from one task at a time.
final class PowerSpectrum {
    /// FFT length (a power of two, at least the frame length).
    let size: Int
    /// Samples per analysed frame.
    let frameSamples: Int
    /// Power per bin `0...size/2` after the last ``compute(_:)``.
    private(set) var power: UnsafeMutableBufferPointer<Double>

    private let window: UnsafeMutableBufferPointer<Double>
    private let real: UnsafeMutableBufferPointer<Double>
    private let imaginary: UnsafeMutableBufferPointer<Double>
    private let cosines: UnsafeMutableBufferPointer<Double>
    private let sines: UnsafeMutableBufferPointer<Double>
    private let reversed: UnsafeMutableBufferPointer<Int>

    /// An analyser for frames of `frameSamples` (at least 2) samples.
    init(frameSamples: Int) {
        precondition(frameSamples >= 2, "a spectrum needs at least two samples")
        self.frameSamples = frameSamples
        var size = 256
        while size < frameSamples { size *= 2 }
        self.size = size
        window = .allocate(capacity: frameSamples)
        for index in 0..<frameSamples {
            window[index] = 0.5 - 0.5 * cos(2 * Double.pi * Double(index) / Double(frameSamples - 1))
        }
        real = .allocate(capacity: size)
        imaginary = .allocate(capacity: size)
        power = .allocate(capacity: size / 2 + 1)
        power.initialize(repeating: 0)
        cosines = .allocate(capacity: size / 2)
        sines = .allocate(capacity: size / 2)
        for index in 0..<size / 2 {
            let angle = -2 * Double.pi * Double(index) / Double(size)
            cosines[index] = cos(angle)
            sines[index] = sin(angle)
        }
        reversed = .allocate(capacity: size)
        let bits = size.trailingZeroBitCount
        for index in 0..<size {
            var value = 0
            for bit in 0..<bits where index & (1 << bit) != 0 { value |= 1 << (bits - 1 - bit) }
            reversed[index] = value
        }
    }

    deinit {
        window.deallocate()
        real.deallocate()
        imaginary.deallocate()
        power.deallocate()
        cosines.deallocate()
        sines.deallocate()
        reversed.deallocate()
    }

    /// Hz per bin at `sampleRate`.
    func binWidth(sampleRate: Int) -> Double { Double(sampleRate) / Double(size) }

    /// Windows `frame` (``frameSamples`` samples, full scale 1.0 = 32768) and fills ``power``.
    func compute(_ frame: UnsafeBufferPointer<Int16>) {
        precondition(frame.count == frameSamples, "PowerSpectrum.compute needs exactly frameSamples samples")
        for index in 0..<size {
            let target = reversed[index]
            real[target] = index < frameSamples ? Double(frame[index]) / 32768 * window[index] : 0
            imaginary[target] = 0
        }
        var length = 2
        while length <= size {
            let half = length / 2
            let step = size / length
            var start = 0
            while start < size {
                for offset in 0..<half {
                    let c = cosines[offset * step]
                    let s = sines[offset * step]
                    let a = start + offset
                    let b = a + half
                    let tr = real[b] * c - imaginary[b] * s
                    let ti = real[b] * s + imaginary[b] * c
                    real[b] = real[a] - tr
                    imaginary[b] = imaginary[a] - ti
                    real[a] += tr
                    imaginary[a] += ti
                }
                start += length
            }
            length *= 2
        }
        for bin in 0...size / 2 {
            power[bin] = real[bin] * real[bin] + imaginary[bin] * imaginary[bin]
        }
    }
}
