/// Settings of the ``MicroFrontend`` feature pipeline: window, filterbank, noise reduction, PCAN
/// gain control and log scale. ``microWakeWord`` holds the values microWakeWord models are
/// trained with (those of the pymicro-features / ESPHome frontend); change them only for
/// experiments, a model sees anything else as a different input.
public struct MicroFrontendConfiguration: Sendable, Hashable {
    /// Input sample rate in Hz.
    public var sampleRate: Int = 16000
    /// Analysis window length in milliseconds (a Hann window).
    public var windowMilliseconds: Int = 30
    /// Hop between feature frames in milliseconds.
    public var stepMilliseconds: Int = 10
    /// Number of mel channels, that is values per feature frame.
    public var channelCount: Int = 40
    /// Lowest frequency the filterbank covers, in Hz.
    public var lowerBandLimit: Float = 125
    /// Highest frequency the filterbank covers, in Hz.
    public var upperBandLimit: Float = 7500
    /// Extra fractional bits the noise estimate is kept with.
    public var noiseSmoothingBits: Int = 10
    /// Noise-estimate smoothing coefficient for even channels (0...1, per frame).
    public var evenSmoothing: Float = 0.025
    /// Noise-estimate smoothing coefficient for odd channels (0...1, per frame).
    public var oddSmoothing: Float = 0.06
    /// Fraction of a channel's energy that noise reduction always leaves in place (0...1).
    public var minSignalRemaining: Float = 0.05
    /// Whether per-channel energy normalisation (PCAN) gain control runs.
    public var pcanEnabled: Bool = true
    /// PCAN exponent: how strongly the gain follows the noise estimate.
    public var pcanStrength: Float = 0.95
    /// PCAN offset added to the noise estimate before the power law.
    public var pcanOffset: Float = 80
    /// Fixed-point bits of the PCAN gain.
    public var pcanGainBits: Int = 21
    /// Whether the output is log-scaled (otherwise the PCAN output is clamped to 16 bits).
    public var logEnabled: Bool = true
    /// Fixed-point bits of the log output (6: one unit is 1/64 of a natural-log unit).
    public var logScaleShift: Int = 6

    /// The defaults above.
    public init() {}

    /// The frontend microWakeWord models expect: 16 kHz, 30 ms window, 10 ms step, 40 channels
    /// from 125 to 7500 Hz, noise smoothing 10 bits / 0.025 / 0.06 / 0.05, PCAN 0.95 / 80 / 21
    /// bits, log scale with shift 6.
    public static let microWakeWord = MicroFrontendConfiguration()

    /// Samples per analysis window (480 for the defaults).
    public var windowSize: Int { windowMilliseconds * sampleRate / 1000 }

    /// Samples per step (160 for the defaults).
    public var stepSize: Int { stepMilliseconds * sampleRate / 1000 }

    /// Problems that make the configuration unusable, empty when it is fine.
    public var problems: [String] {
        var problems: [String] = []
        if sampleRate < 1000 { problems.append("sample rate \(sampleRate) Hz is too low") }
        if stepSize < 1 || windowSize < stepSize {
            problems.append("window \(windowMilliseconds) ms must be at least the step \(stepMilliseconds) ms (> 0)")
        }
        if windowSize > 32768 { problems.append("window of \(windowSize) samples is too long") }
        if channelCount < 1 { problems.append("channel count must be positive") }
        if !(lowerBandLimit >= 0 && upperBandLimit > lowerBandLimit
            && upperBandLimit < Float(sampleRate) / 2)
        {
            problems.append("band \(lowerBandLimit)...\(upperBandLimit) Hz must lie below half the sample rate")
        }
        if !(0...16).contains(noiseSmoothingBits) { problems.append("noise smoothing bits must be 0...16") }
        for (name, value) in [
            ("even smoothing", evenSmoothing), ("odd smoothing", oddSmoothing),
            ("minimum signal remaining", minSignalRemaining),
        ] where !(0...1).contains(value) {
            problems.append("\(name) \(value) must be in 0...1")
        }
        if pcanEnabled && !(0 < pcanGainBits && pcanGainBits < 31) { problems.append("PCAN gain bits must be 1...30") }
        if pcanEnabled && !(pcanOffset > 0 && pcanStrength >= 0) {
            problems.append("PCAN offset must be positive and strength non-negative")
        }
        if logEnabled && !(0...16).contains(logScaleShift) { problems.append("log scale shift must be 0...16") }
        return problems
    }
}
