/// Wake-word detection with microWakeWord models: 16 kHz mono audio → ``MicroFrontend`` → one
/// streaming TF Lite interpreter per model → sliding-window mean → ``WakeDetection``.
///
/// Per model, every `stride` feature frames (the input tensor's dimension 1, 3 for the shipped
/// models, so every 30 ms): the frames are scaled by ``MicroFrontend/featureScale``, quantised
/// with the input tensor's scale and zero point, the model runs once, and its dequantised output
/// joins a window of the last `slidingWindowSize` outputs. When the window is full and its mean
/// is strictly above the cutoff (the manifest's, unless overridden) the model reports a
/// detection; its window then starts empty and it stays quiet for the refractory period.
///
/// This follows pymicro-wakeword 2.5.0 step for step (same quantisation and rounding, same
/// comparison), except that quantised inputs are clamped to the tensor's range where the
/// wrapper's numpy cast would wrap around (features above ~26, very loud input).
///
/// Not thread-safe and not `Sendable`: the models are stateful streams, so one detector belongs
/// to one audio stream and one task (the wake-word consumer, not the audio thread: inference
/// takes tens of microseconds per model).
public final class MicroWakeWordDetector {
    /// Tuning for a detector.
    public struct Options: Sendable, Hashable {
        /// Cutoffs by model id that replace the manifests' `probability_cutoff` (0...1).
        public var cutoffs: [String: Double]
        /// Seconds after a detection during which the same model reports nothing.
        public var refractoryPeriod: Double
        /// The feature frontend (leave at ``MicroFrontendConfiguration/microWakeWord``).
        public var frontend: MicroFrontendConfiguration

        /// Options with the manifests' cutoffs and a 2 s refractory period by default.
        public init(
            cutoffs: [String: Double] = [:], refractoryPeriod: Double = 2,
            frontend: MicroFrontendConfiguration = .microWakeWord
        ) {
            self.cutoffs = cutoffs
            self.refractoryPeriod = refractoryPeriod
            self.frontend = frontend
        }
    }

    /// The models, in the order given.
    public let models: [MicroWakeWordModel]
    /// The options in use.
    public let options: Options
    /// Called after every inference of every model (diagnostics, benchmarks); runs inside
    /// ``process(_:)`` on the caller's thread.
    public var onInference: ((WakeInference) -> Void)?
    /// Samples consumed since `init` or ``reset()``.
    public var samplesProcessed: Int { frontend.samplesConsumed }

    private let frontend: MicroFrontend
    private let streams: [MicroWakeWordStream]

    /// Loads one interpreter per model from `runtime`. Throws ``SpeechError`` when a model cannot
    /// be loaded or does not have microWakeWord's tensor layout, or when a cutoff is not in (0, 1].
    public init(models: [MicroWakeWordModel], runtime: TFLiteRuntime, options: Options = Options()) throws {
        let frontendConfiguration = options.frontend
        guard frontendConfiguration.problems.isEmpty else {
            throw SpeechError.tflite(
                operation: "configure the wake-word frontend",
                message: frontendConfiguration.problems.joined(separator: "; "))
        }
        let sampleRate = frontendConfiguration.sampleRate
        let refractorySamples = Int((max(0, options.refractoryPeriod) * Double(sampleRate)).rounded())
        var streams: [MicroWakeWordStream] = []
        for model in models {
            guard model.featureStepSizeMs == frontendConfiguration.stepMilliseconds else {
                throw SpeechError.manifest(
                    path: model.manifestPath,
                    message: "feature step \(model.featureStepSizeMs) ms, the frontend runs at "
                        + "\(frontendConfiguration.stepMilliseconds) ms")
            }
            let cutoff = options.cutoffs[model.id] ?? model.probabilityCutoff
            guard cutoff > 0, cutoff <= 1 else {
                throw SpeechError.manifest(path: model.manifestPath, message: "cutoff \(cutoff) is outside (0, 1]")
            }
            streams.append(
                try MicroWakeWordStream(
                    model: model, runtime: runtime, channels: frontendConfiguration.channelCount, cutoff: cutoff,
                    refractorySamples: refractorySamples))
        }
        self.models = models
        self.options = options
        self.streams = streams
        frontend = MicroFrontend(configuration: frontendConfiguration)
    }

    /// The cutoff in use for model `id`, if the detector has that model.
    public func cutoff(for id: String) -> Double? {
        streams.first { $0.model.id == id }?.cutoff
    }

    /// Feeds 16 kHz mono samples (any chunk size) and returns the detections they complete, in
    /// order. If a model fails to run, the error is thrown and the rest of `samples` is dropped.
    public func process(_ samples: UnsafeBufferPointer<Int16>) throws -> [WakeDetection] {
        var detections: [WakeDetection] = []
        let sampleRate = options.frontend.sampleRate
        try frontend.process(samples) { frame in
            let position = frontend.samplesConsumed
            for stream in streams {
                let (inference, detection) = try stream.append(frame, sampleCount: position, sampleRate: sampleRate)
                if let inference, let onInference { onInference(inference) }
                if let detection { detections.append(detection) }
            }
        }
        return detections
    }

    /// Feeds 16 kHz mono samples and returns the detections they complete.
    public func process(_ samples: [Int16]) throws -> [WakeDetection] {
        try samples.withUnsafeBufferPointer { try process($0) }
    }

    /// Starts over: empty frontend, fresh interpreters, empty windows, no refractory period,
    /// timestamps from zero.
    public func reset() throws {
        frontend.reset()
        for stream in streams { try stream.reset() }
    }
}
