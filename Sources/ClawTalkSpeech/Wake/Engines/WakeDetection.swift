/// A wake word heard by ``MicroWakeWordDetector``.
public struct WakeDetection: Sendable, Hashable {
    /// The model's id (manifest name), for example `okay_nabu`.
    public var modelID: String
    /// The phrase, for example `Okay Nabu`.
    public var wakeWord: String
    /// The sliding-window mean probability that exceeded the cutoff (0...1).
    public var probability: Double
    /// Seconds of audio from the detector's start (or last reset) to the end of the feature
    /// window that completed the detection.
    public var timestamp: Double

    /// A detection.
    public init(modelID: String, wakeWord: String, probability: Double, timestamp: Double) {
        self.modelID = modelID
        self.wakeWord = wakeWord
        self.probability = probability
        self.timestamp = timestamp
    }
}

/// One model run inside ``MicroWakeWordDetector`` (for diagnostics, benchmarks and tests).
public struct WakeInference: Sendable, Hashable {
    /// The model's id.
    public var modelID: String
    /// The model's dequantised output for this inference (0...1).
    public var probability: Double
    /// Mean over the model's sliding window, `nil` while the window is not yet full.
    public var mean: Double?
    /// Seconds of audio from the start (or last reset) to the end of the last feature window used.
    public var timestamp: Double
}
