import Foundation

/// Loudness of a block of s16 samples, relative to full scale (1.0 = 32768).
///
/// Pure functions, safe on audio threads: no allocation, no locks. A full-scale sine has an RMS
/// of 0.707, i.e. −3.01 dBFS (no "+3 dB" sine correction is applied).
public enum LevelMeter {
    /// dBFS reported for digital silence (instead of −∞).
    public static let silenceFloor: Double = -120

    /// Root mean square of `samples` in full scale (0 for an empty block).
    public static func rms(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for sample in samples {
            let value = Double(sample)
            sum += value * value
        }
        return (sum / Double(samples.count)).squareRoot() / 32768
    }

    /// Root mean square of `samples` around their mean (the DC offset taken out), in full scale:
    /// what a high-pass filter would leave of a block's level.
    public static func acRMS(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        var squares = 0.0
        for sample in samples {
            let value = Double(sample)
            sum += value
            squares += value * value
        }
        let count = Double(samples.count)
        let mean = sum / count
        return max(squares / count - mean * mean, 0).squareRoot() / 32768
    }

    /// Root mean square of `samples` in full scale (0 for an empty block).
    public static func rms(_ samples: [Int16]) -> Double {
        samples.withUnsafeBufferPointer { rms($0) }
    }

    /// Largest absolute sample in full scale (`Int16.min` counts as exactly 1.0).
    public static func peak(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        var largest = 0
        for sample in samples {
            largest = max(largest, abs(Int(sample)))
        }
        return Double(largest) / 32768
    }

    /// Largest absolute sample in full scale (`Int16.min` counts as exactly 1.0).
    public static func peak(_ samples: [Int16]) -> Double {
        samples.withUnsafeBufferPointer { peak($0) }
    }

    /// Converts a full-scale amplitude (RMS or peak) to dBFS, clamped below at ``silenceFloor``.
    public static func dBFS(_ amplitude: Double) -> Double {
        guard amplitude > 0 else { return silenceFloor }
        return max(silenceFloor, 20 * log10(amplitude))
    }

    /// RMS level of `samples` in dBFS.
    public static func rmsDBFS(_ samples: [Int16]) -> Double {
        dBFS(rms(samples))
    }

    /// RMS, peak and RMS in dBFS in one pass.
    public static func measure(_ samples: UnsafeBufferPointer<Int16>) -> Level {
        guard !samples.isEmpty else { return Level(rms: 0, peak: 0) }
        var sum = 0.0
        var largest = 0
        for sample in samples {
            let value = Double(sample)
            sum += value * value
            largest = max(largest, abs(Int(sample)))
        }
        return Level(rms: (sum / Double(samples.count)).squareRoot() / 32768, peak: Double(largest) / 32768)
    }

    /// RMS, peak and RMS in dBFS in one pass.
    public static func measure(_ samples: [Int16]) -> Level {
        samples.withUnsafeBufferPointer { measure($0) }
    }

    /// The result of `LevelMeter.measure(_:)`.
    public struct Level: Sendable, Equatable {
        /// Root mean square in full scale.
        public var rms: Double
        /// Largest absolute sample in full scale.
        public var peak: Double

        /// Wraps measured values.
        public init(rms: Double, peak: Double) {
            self.rms = rms
            self.peak = peak
        }

        /// ``rms`` in dBFS.
        public var dBFS: Double { LevelMeter.dBFS(rms) }
        /// ``peak`` in dBFS.
        public var peakDBFS: Double { LevelMeter.dBFS(peak) }
    }
}
