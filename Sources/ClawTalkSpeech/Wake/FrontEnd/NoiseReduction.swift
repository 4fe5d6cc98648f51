/// Per-channel stationary noise subtraction for ``MicroFrontend``.
///
/// Each channel keeps a running noise estimate (an exponential average of its own input with
/// `smoothingBits` extra fractional bits, coefficient ``MicroFrontendConfiguration/evenSmoothing``
/// on even and ``MicroFrontendConfiguration/oddSmoothing`` on odd channels, in 14-bit fixed
/// point). The output is the input minus the estimate, but never less than
/// ``MicroFrontendConfiguration/minSignalRemaining`` of the input.
final class NoiseReduction {
    /// Fixed-point bits of the smoothing coefficients.
    static let coefficientBits = 14

    private let smoothingBits: UInt32
    private let evenSmoothing: UInt64
    private let oddSmoothing: UInt64
    private let minSignalRemaining: UInt64
    /// The current noise estimate per channel (read by PCAN gain control).
    let estimate: UnsafeMutableBufferPointer<UInt32>

    /// Zero estimates for `configuration.channelCount` channels.
    init(configuration: MicroFrontendConfiguration) {
        let one = Float(1 << Self.coefficientBits)
        smoothingBits = UInt32(configuration.noiseSmoothingBits)
        // Coefficients truncate to 16 bits, as the reference's do.
        evenSmoothing = UInt64(UInt16(configuration.evenSmoothing * one))
        oddSmoothing = UInt64(UInt16(configuration.oddSmoothing * one))
        minSignalRemaining = UInt64(UInt16(configuration.minSignalRemaining * one))
        estimate = .allocate(capacity: configuration.channelCount)
        estimate.initialize(repeating: 0)
    }

    deinit {
        estimate.deallocate()
    }

    /// Forgets the noise estimate.
    func reset() {
        for index in estimate.indices { estimate[index] = 0 }
    }

    /// Updates the estimate with `signal` and replaces `signal` by the noise-reduced values.
    func apply(_ signal: UnsafeMutableBufferPointer<UInt32>) {
        let bits = UInt64(Self.coefficientBits)
        for channel in signal.indices {
            let smoothing = channel & 1 == 0 ? evenSmoothing : oddSmoothing
            let input = signal[channel]
            let scaledUp = input &<< smoothingBits
            let updated = UInt32(
                truncatingIfNeeded: (UInt64(scaledUp) &* smoothing
                    &+ UInt64(estimate[channel]) &* ((1 << bits) - smoothing)) >> bits)
            estimate[channel] = updated
            let noise = min(updated, scaledUp)
            let floor = UInt32(truncatingIfNeeded: (UInt64(input) &* minSignalRemaining) >> bits)
            signal[channel] = max((scaledUp - noise) >> smoothingBits, floor)
        }
    }
}
