import Foundation

/// The audio feature frontend microWakeWord models expect: the project's own implementation of
/// the TensorFlow Lite Micro "microfrontend" algorithm, in fixed point so its output matches the
/// reference (pymicro-features 2.0.2) value for value.
///
/// Per step (160 samples at 16 kHz) over the last window (480 samples):
/// 1. Hann window in 12-bit fixed point;
/// 2. the windowed block is shifted left so its largest value uses all 16 bits, zero-padded to
///    the next power of two (512) and transformed by ``FixedPointRealFFT``;
/// 3. ``MelFilterbank``: power spectrum → 40 mel channels (square-rooted, shift undone);
/// 4. ``NoiseReduction``: subtract each channel's slowly tracked noise floor;
/// 5. ``PCANGainControl``: per-channel gain from the noise floor, soft compression;
/// 6. ``LogScale``: 64 × natural log, 16-bit output.
///
/// The first frame comes after one full window (480 samples), then one per step; chunk sizes do
/// not change the output. Multiply a value by ``featureScale`` for the models' float input.
///
/// Not thread-safe and not `Sendable`: one frontend per audio stream, used by one task. After
/// `init`, processing allocates nothing (except the convenience ``process(_:)``).
public final class MicroFrontend {
    /// Factor from the uint16 output to the float features the models were trained on.
    public static let featureScale: Float = 0.0390625

    /// The settings this frontend was built with.
    public let configuration: MicroFrontendConfiguration
    /// Values per feature frame.
    public var channelCount: Int { configuration.channelCount }
    /// Samples consumed since `init` or ``reset()``; inside the frame callback of
    /// ``process(_:onFrame:)`` it is the sample count at the end of that frame's window.
    public private(set) var samplesConsumed = 0
    /// Frames produced since `init` or ``reset()``.
    public private(set) var framesProduced = 0

    private let windowSize: Int
    private let stepSize: Int
    /// Hann window, 12-bit fixed point.
    private let coefficients: [Int16]
    /// The window's input samples; the first `inputUsed` are valid.
    private let input: UnsafeMutableBufferPointer<Int16>
    private var inputUsed = 0
    /// Windowed, scaled and zero-padded block for the FFT.
    private let fftInput: UnsafeMutableBufferPointer<Int16>
    private let spectrumReal: UnsafeMutableBufferPointer<Int16>
    private let spectrumImag: UnsafeMutableBufferPointer<Int16>
    private let signal: UnsafeMutableBufferPointer<UInt32>
    private let output: UnsafeMutableBufferPointer<UInt16>
    private let fft: FixedPointRealFFT
    private let filterbank: MelFilterbank
    private let noiseReduction: NoiseReduction
    private let gainControl: PCANGainControl?
    private let logScale: LogScale

    /// Fixed-point bits of the window coefficients.
    private static let windowBits = 12

    /// A frontend with `configuration` (which must have no ``MicroFrontendConfiguration/problems``).
    public init(configuration: MicroFrontendConfiguration = .microWakeWord) {
        precondition(configuration.problems.isEmpty, configuration.problems.joined(separator: "; "))
        self.configuration = configuration
        windowSize = configuration.windowSize
        stepSize = configuration.stepSize
        let size = configuration.windowSize
        // π rounded to nearest (Float.pi is rounded toward zero, one ulp lower): the window must
        // match the reference's coefficients exactly.
        let arg = Float(Double.pi) * 2 / Float(size)
        let one = Float(1 << Self.windowBits)
        coefficients = (0..<size).map { index in
            let value = 0.5 - 0.5 * cos(arg * (Float(index) + 0.5))
            return Int16((value * one + 0.5).rounded(.down))
        }
        var fftSize = 1
        while fftSize < size { fftSize <<= 1 }
        fftSize = max(fftSize, 8)
        fft = FixedPointRealFFT(size: fftSize)
        filterbank = MelFilterbank(configuration: configuration, spectrumSize: fftSize / 2 + 1)
        noiseReduction = NoiseReduction(configuration: configuration)
        // log2(FFT size) − 1 − half the filterbank weight bits.
        let correctionBits = (Int.bitWidth - fftSize.leadingZeroBitCount) - 1 - MelFilterbank.weightBits / 2
        gainControl =
            configuration.pcanEnabled
            ? PCANGainControl(configuration: configuration, correctionBits: correctionBits) : nil
        logScale = LogScale(configuration: configuration, correctionBits: correctionBits)
        input = .allocate(capacity: size)
        input.initialize(repeating: 0)
        fftInput = .allocate(capacity: fftSize)
        fftInput.initialize(repeating: 0)
        spectrumReal = .allocate(capacity: fftSize / 2 + 1)
        spectrumReal.initialize(repeating: 0)
        spectrumImag = .allocate(capacity: fftSize / 2 + 1)
        spectrumImag.initialize(repeating: 0)
        signal = .allocate(capacity: configuration.channelCount)
        signal.initialize(repeating: 0)
        output = .allocate(capacity: configuration.channelCount)
        output.initialize(repeating: 0)
    }

    deinit {
        input.deallocate()
        fftInput.deallocate()
        spectrumReal.deallocate()
        spectrumImag.deallocate()
        signal.deallocate()
        output.deallocate()
    }

    /// Forgets buffered audio and the noise estimate: the next frame needs a full window again.
    public func reset() {
        for index in input.indices { input[index] = 0 }
        inputUsed = 0
        noiseReduction.reset()
        samplesConsumed = 0
        framesProduced = 0
    }

    /// Feeds `samples` (mono, ``MicroFrontendConfiguration/sampleRate``) and calls `onFrame`
    /// with each completed frame (``channelCount`` values, valid only during the call). If
    /// `onFrame` throws, the rest of `samples` is not consumed.
    public func process(
        _ samples: UnsafeBufferPointer<Int16>, onFrame: (UnsafeBufferPointer<UInt16>) throws -> Void
    ) rethrows {
        var offset = 0
        while offset < samples.count {
            let count = min(windowSize - inputUsed, samples.count - offset)
            for index in 0..<count {
                input[inputUsed + index] = samples[offset + index]
            }
            inputUsed += count
            offset += count
            samplesConsumed += count
            guard inputUsed == windowSize else { continue }
            computeFrame()
            framesProduced += 1
            try onFrame(UnsafeBufferPointer(output))
        }
    }

    /// Feeds `samples` and returns the frames they complete (allocates; for tests and tools).
    public func process(_ samples: UnsafeBufferPointer<Int16>) -> [[UInt16]] {
        var frames: [[UInt16]] = []
        process(samples) { frames.append(Array($0)) }
        return frames
    }

    /// Feeds `samples` and returns the frames they complete (allocates; for tests and tools).
    public func process(_ samples: [Int16]) -> [[UInt16]] {
        samples.withUnsafeBufferPointer { process($0) }
    }

    // MARK: - Private

    /// Runs the pipeline on the full window in `input`, leaves the frame in `output` and drops
    /// one step from the window.
    private func computeFrame() {
        var peak: Int16 = 0
        coefficients.withUnsafeBufferPointer { coefficients in
            for index in 0..<windowSize {
                let value = Int16(truncatingIfNeeded: (Int32(input[index]) * Int32(coefficients[index])) >> 12)
                fftInput[index] = value
                // −(−32768) wraps to itself and is ignored, as in 16-bit C arithmetic.
                peak = max(peak, value < 0 ? 0 &- value : value)
            }
        }
        // Use the full 16 bits in the FFT; the filterbank shifts back.
        let shift = 15 - (UInt32.bitWidth - UInt32(peak).leadingZeroBitCount)
        for index in 0..<windowSize {
            fftInput[index] = Int16(truncatingIfNeeded: Int32(UInt16(bitPattern: fftInput[index])) << shift)
        }
        for index in windowSize..<fftInput.count { fftInput[index] = 0 }
        fft.transform(UnsafeBufferPointer(fftInput), outputReal: spectrumReal, outputImag: spectrumImag)
        filterbank.apply(
            real: UnsafeBufferPointer(spectrumReal), imag: UnsafeBufferPointer(spectrumImag), shift: shift,
            output: signal)
        noiseReduction.apply(signal)
        gainControl?.apply(signal, noise: noiseReduction.estimate)
        logScale.apply(signal, output: output)
        // Slide the window by one step.
        let kept = windowSize - stepSize
        for index in 0..<kept { input[index] = input[index + stepSize] }
        inputUsed = kept
    }
}
