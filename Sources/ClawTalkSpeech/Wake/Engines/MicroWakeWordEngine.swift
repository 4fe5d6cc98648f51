/// Stage-1 spotting with microWakeWord models (``MicroWakeWordDetector``) for the triggers that
/// have one. A trigger maps to the model whose manifest `wake_word` or file id spells it
/// (compared by ``TriggerText/key(_:)``): `hey jarvis`, `Hey Jarvis` and `hey_jarvis` all
/// select `hey_jarvis`.
///
/// Cutoffs come from the manifests unless overridden by trigger or model id
/// (`wake.thresholds: { okay_nabu: 0.85 }`). Not thread-safe (see ``WakeEngine``).
public final class MicroWakeWordEngine: WakeEngine {
    /// The name in ``WakeHit/engine``.
    public static let engineName = "microwakeword"

    /// ``engineName``.
    public var name: String { Self.engineName }
    /// The triggers, as configured.
    public private(set) var triggers: [String]
    /// Every model available (the ones in use are those of ``triggers``).
    public let availableModels: [MicroWakeWordModel]
    /// Overrides by trigger or model id.
    public let cutoffs: [String: Double]
    /// Seconds after a hit during which the same model stays quiet.
    public let refractoryPeriod: Double

    private let runtime: TFLiteRuntime
    private var detector: MicroWakeWordDetector
    /// Trigger by model id for the models in use.
    private var triggerByModel: [String: String]
    /// Seconds of audio fed to detectors replaced by ``setTriggers(_:)`` since the last reset.
    private var offset = 0.0

    /// The model that detects `trigger`, if one of `models` does.
    public static func model(for trigger: String, in models: [MicroWakeWordModel]) -> MicroWakeWordModel? {
        let key = TriggerText.key(trigger)
        guard !key.isEmpty else { return nil }
        return models.first { TriggerText.key($0.wakeWord) == key || TriggerText.key($0.id) == key }
    }

    /// An engine for `triggers`, each of which must have a model in `models`.
    public init(
        triggers: [String], models: [MicroWakeWordModel], runtime: TFLiteRuntime, cutoffs: [String: Double] = [:],
        refractoryPeriod: Double = 2
    ) throws {
        availableModels = models
        self.runtime = runtime
        self.cutoffs = cutoffs
        self.refractoryPeriod = refractoryPeriod
        (detector, triggerByModel) = try Self.detector(
            for: triggers, models: models, runtime: runtime, cutoffs: cutoffs, refractoryPeriod: refractoryPeriod)
        self.triggers = triggers
    }

    /// The cutoff a trigger's model uses, if the trigger is in use.
    public func cutoff(for trigger: String) -> Double? {
        Self.model(for: trigger, in: detector.models).flatMap { detector.cutoff(for: $0.id) }
    }

    /// Loads the models of `triggers`; the stream's time base continues.
    public func setTriggers(_ triggers: [String]) throws {
        let (detector, triggerByModel) = try Self.detector(
            for: triggers, models: availableModels, runtime: runtime, cutoffs: cutoffs,
            refractoryPeriod: refractoryPeriod)
        offset += Double(self.detector.samplesProcessed) / Double(MicroFrontendConfiguration.microWakeWord.sampleRate)
        self.detector = detector
        self.triggerByModel = triggerByModel
        self.triggers = triggers
    }

    /// Feeds samples; reports the models' detections.
    public func process(_ samples: UnsafeBufferPointer<Int16>) throws -> [WakeHit] {
        try detector.process(samples).map { detection in
            WakeHit(
                trigger: triggerByModel[detection.modelID] ?? detection.wakeWord, engine: name,
                atSeconds: offset + detection.timestamp, score: detection.probability)
        }
    }

    /// microWakeWord decides as it goes: nothing is left at the end.
    public func finish() throws -> [WakeHit] { [] }

    /// Fresh interpreters and time base.
    public func reset() throws {
        try detector.reset()
        offset = 0
    }

    /// Moves the time base on by `samples` (an engine created in the middle of a stream).
    func skip(_ samples: Int) {
        offset += Double(samples) / Double(MicroFrontendConfiguration.microWakeWord.sampleRate)
    }

    private static func detector(
        for triggers: [String], models: [MicroWakeWordModel], runtime: TFLiteRuntime, cutoffs: [String: Double],
        refractoryPeriod: Double
    ) throws -> (MicroWakeWordDetector, [String: String]) {
        var selected: [MicroWakeWordModel] = []
        var triggerByModel: [String: String] = [:]
        var modelCutoffs: [String: Double] = [:]
        for trigger in triggers {
            guard let model = model(for: trigger, in: models) else {
                throw WakeError.unsupportedTrigger(trigger: trigger, engine: engineName)
            }
            guard triggerByModel[model.id] == nil else { continue }
            selected.append(model)
            triggerByModel[model.id] = trigger
            let keys = [TriggerText.key(trigger), TriggerText.key(model.id)]
            if let cutoff = cutoffs.first(where: { keys.contains(TriggerText.key($0.key)) })?.value {
                modelCutoffs[model.id] = cutoff
            }
        }
        guard !selected.isEmpty else { throw WakeError.unsupportedTrigger(trigger: "", engine: engineName) }
        let detector = try MicroWakeWordDetector(
            models: selected, runtime: runtime,
            options: .init(cutoffs: modelCutoffs, refractoryPeriod: refractoryPeriod))
        return (detector, triggerByModel)
    }
}
