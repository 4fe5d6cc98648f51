import ClawTalkAudio

/// The stage-1 wake engine the node runs: every trigger goes to the engine chosen for it by
/// ``Selection`` (microWakeWord where a model exists; the Whisper keyword scorer for the rest when
/// one is configured, with PocketSphinx keyphrase spotting taking its triggers while it does not
/// answer; PocketSphinx alone otherwise), behind the one ``WakeEngine`` interface.
/// ``setTriggers(_:)`` re-plans and applies a new list (Gateway `voicewake.changed`) without
/// restarting the audio stream.
///
/// Not thread-safe (see ``WakeEngine``).
public final class KeywordSpotter: WakeEngine {
    /// Which engines may be used (setting `wake.engine`).
    public enum Selection: String, Sendable, CaseIterable {
        /// microWakeWord for triggers with a model, the keyword scorer (or PocketSphinx) for the
        /// others.
        case auto
        /// microWakeWord only; triggers without a model are not listened for.
        case microwakeword
        /// PocketSphinx only.
        case pocketsphinx
    }

    /// Which engine takes which trigger.
    public struct Plan: Sendable, Hashable {
        /// Triggers for microWakeWord.
        public var microWakeWord: [String] = []
        /// Triggers for the Whisper keyword scorer.
        public var scorer: [String] = []
        /// Triggers for PocketSphinx (with a scorer: the same as ``scorer``, spotted only while the
        /// scorer does not answer).
        public var pocketSphinx: [String] = []
        /// Triggers no allowed engine can take.
        public var unsupported: [String] = []

        /// Every trigger some engine listens for, each once, in plan order.
        public var tested: [String] {
            var seen: Set<String> = []
            return (microWakeWord + scorer + pocketSphinx).filter { seen.insert($0).inserted }
        }

        /// A plan from its lists.
        public init(
            microWakeWord: [String] = [], scorer: [String] = [], pocketSphinx: [String] = [],
            unsupported: [String] = []
        ) {
            self.microWakeWord = microWakeWord
            self.scorer = scorer
            self.pocketSphinx = pocketSphinx
            self.unsupported = unsupported
        }
    }

    /// Everything the spotter needs to build its engines.
    public struct Configuration {
        /// Allowed engines.
        public var selection: Selection
        /// microWakeWord models (empty when none are installed).
        public var models: [MicroWakeWordModel]
        /// The TF Lite runtime, nil when it could not be loaded (then microWakeWord is not used).
        public var runtime: TFLiteRuntime?
        /// Thresholds by trigger or model id: microWakeWord cutoffs (0...1) and PocketSphinx
        /// keyphrase thresholds (e.g. 1e-20) alike (`wake.thresholds`).
        public var thresholds: [String: Double]
        /// PocketSphinx model.
        public var pocketSphinxModel: PocketSphinxDecoder.Model
        /// Pronunciations for PocketSphinx keyphrases.
        public var resolver: PronunciationResolver
        /// The Whisper keyword scorer for triggers without a model under `auto`; nil for none
        /// (PocketSphinx takes them). Its thresholds are the scorer's (PocketSphinx, as its
        /// fallback, keeps its own defaults for those triggers).
        public var scorer: WhisperKeywordEngine.Configuration?
        /// Called when the scorer's connection comes or goes.
        public var onScorerLink: (@Sendable (WhisperKeywordEngine.LinkEvent) -> Void)?
        /// Seconds of audio without an answering scorer before PocketSphinx is loaded to take its
        /// triggers (5): a supervised scorer answers within about 3 s of the node's start, and
        /// PocketSphinx, never loaded then, keeps some 30 MB out of the node's memory.
        public var fallbackDelay: Double = 5
        /// Seconds of audio with the scorer answering after which a PocketSphinx loaded as its
        /// fallback is released again (30): a scorer that was slow to start on a busy machine
        /// then costs the node its 30 MB only until it answers, not for the node's life. It is
        /// loaded again if the scorer goes away.
        public var fallbackReleaseDelay: Double = 30

        /// A configuration; `resolver` must use the dictionary of `pocketSphinxModel`.
        public init(
            selection: Selection = .auto, models: [MicroWakeWordModel], runtime: TFLiteRuntime?,
            thresholds: [String: Double] = [:], pocketSphinxModel: PocketSphinxDecoder.Model = .debianEnglish,
            resolver: PronunciationResolver, scorer: WhisperKeywordEngine.Configuration? = nil,
            onScorerLink: (@Sendable (WhisperKeywordEngine.LinkEvent) -> Void)? = nil
        ) {
            self.scorer = scorer
            self.onScorerLink = onScorerLink
            self.selection = selection
            self.models = models
            self.runtime = runtime
            self.thresholds = thresholds
            self.pocketSphinxModel = pocketSphinxModel
            self.resolver = resolver
        }
    }

    /// Splits `triggers` between the engines (pure; duplicates by ``TriggerText/key(_:)`` and
    /// empty triggers are dropped).
    public static func plan(
        triggers: [String], selection: Selection, models: [MicroWakeWordModel], microWakeWordAvailable: Bool = true,
        scorer: Bool = false
    ) -> Plan {
        var plan = Plan()
        var seen: Set<String> = []
        for trigger in triggers {
            let key = TriggerText.key(trigger)
            guard !key.isEmpty, seen.insert(key).inserted else { continue }
            let hasModel = microWakeWordAvailable && MicroWakeWordEngine.model(for: trigger, in: models) != nil
            switch selection {
            case .auto where hasModel, .microwakeword where hasModel: plan.microWakeWord.append(trigger)
            case .auto where scorer:
                plan.scorer.append(trigger)
                plan.pocketSphinx.append(trigger)
            case .auto, .pocketsphinx: plan.pocketSphinx.append(trigger)
            case .microwakeword: plan.unsupported.append(trigger)
            }
        }
        return plan
    }

    /// `auto`, `microwakeword` or `pocketsphinx` (the selection).
    public var name: String { configuration.selection.rawValue }
    /// The triggers, as configured.
    public private(set) var triggers: [String]
    /// The current split between engines.
    public private(set) var plan: Plan
    /// The configuration.
    public let configuration: Configuration
    /// The engines in use (at most one of each kind).
    public var engines: [any WakeEngine] {
        var engines: [any WakeEngine] = []
        if let microWakeWord { engines.append(microWakeWord) }
        if let scorer { engines.append(scorer) }
        if let pocketSphinx { engines.append(pocketSphinx) }
        return engines
    }

    /// Whether PocketSphinx spots now: always without a scorer, else once the scorer has not
    /// answered for ``Configuration/fallbackDelay``, until it answers.
    public var isFallingBack: Bool { pocketSphinx != nil && scorer?.isConnected != true }
    /// Whether the PocketSphinx engine is loaded.
    public var hasPocketSphinx: Bool { pocketSphinx != nil }
    /// How often PocketSphinx was loaded as the scorer's fallback.
    public private(set) var fallbackLoads = 0

    private var microWakeWord: MicroWakeWordEngine?
    private var scorer: WhisperKeywordEngine?
    private var pocketSphinx: PocketSphinxKeywordEngine?
    /// Whether PocketSphinx was fed the previous samples.
    private var pocketSphinxFed = false
    /// Samples since the scorer last answered (or since the start).
    private var unansweredSamples = 0
    /// Samples since the scorer began answering without a break.
    private var answeredSamples = 0
    /// Samples fed since the start: an engine created by ``setTriggers(_:)`` starts at this time.
    private var position = 0

    /// A spotter for `triggers`.
    public init(triggers: [String], configuration: Configuration) throws {
        self.configuration = configuration
        self.triggers = triggers
        plan = Plan()
        try apply(triggers)
    }

    /// The threshold in use for `trigger` (a microWakeWord cutoff or a PocketSphinx threshold).
    public func threshold(for trigger: String) -> Double? {
        if let microWakeWord, let cutoff = microWakeWord.cutoff(for: trigger) { return cutoff }
        if let scorer, plan.scorer.contains(where: { TriggerText.key($0) == TriggerText.key(trigger) }) {
            return scorer.threshold(for: trigger)
        }
        return pocketSphinx?.threshold(for: trigger)
    }

    /// Re-plans and rebuilds the engines whose triggers changed.
    public func setTriggers(_ triggers: [String]) throws {
        try apply(triggers)
        self.triggers = triggers
    }

    /// Feeds every engine; hits in time order.
    public func process(_ samples: UnsafeBufferPointer<Int16>) throws -> [WakeHit] {
        let start = position
        position += samples.count
        var hits: [WakeHit] = []
        if let microWakeWord { hits += try microWakeWord.process(samples) }
        if let scorer {
            hits += try scorer.process(samples)
            unansweredSamples = scorer.isConnected ? 0 : unansweredSamples + samples.count
            answeredSamples = scorer.isConnected ? answeredSamples + samples.count : 0
            let rate = Double(PocketSphinxDecoder.format.sampleRate)
            if pocketSphinx == nil, !scorer.isConnected, !plan.pocketSphinx.isEmpty,
                unansweredSamples >= Int(configuration.fallbackDelay * rate)
            {
                pocketSphinx = try makePocketSphinx(plan)
                pocketSphinx?.skip(start)
                pocketSphinxFed = true
                fallbackLoads += 1
            } else if pocketSphinx != nil, answeredSamples >= Int(configuration.fallbackReleaseDelay * rate) {
                pocketSphinx = nil
                pocketSphinxFed = false
            }
        }
        if let pocketSphinx {
            if scorer?.isConnected == true {
                pocketSphinx.skip(samples.count)
                pocketSphinxFed = false
            } else {
                if !pocketSphinxFed, scorer != nil {
                    try pocketSphinx.reset()
                    pocketSphinx.skip(start)
                }
                hits += try pocketSphinx.process(samples)
                pocketSphinxFed = true
            }
        }
        return hits.sorted { $0.atSeconds < $1.atSeconds }
    }

    /// Ends the stream in every engine.
    public func finish() throws -> [WakeHit] {
        var hits: [WakeHit] = []
        for engine in engines { hits += try engine.finish() }
        return hits.sorted { $0.atSeconds < $1.atSeconds }
    }

    /// Resets every engine.
    public func reset() throws {
        for engine in engines { try engine.reset() }
        position = 0
        pocketSphinxFed = false
        unansweredSamples = 0
        answeredSamples = 0
    }

    private func apply(_ triggers: [String]) throws {
        let newPlan = Self.plan(
            triggers: triggers, selection: configuration.selection, models: configuration.models,
            microWakeWordAvailable: configuration.runtime != nil, scorer: configuration.scorer != nil)
        if newPlan.scorer.isEmpty {
            scorer = nil
        } else if let scorer {
            if newPlan.scorer != plan.scorer { try scorer.setTriggers(newPlan.scorer) }
        } else if let settings = configuration.scorer {
            let engine = WhisperKeywordEngine(triggers: newPlan.scorer, configuration: settings)
            engine.onLinkChange = configuration.onScorerLink
            engine.skip(position)
            scorer = engine
        }
        if newPlan.microWakeWord != plan.microWakeWord || (microWakeWord == nil) != newPlan.microWakeWord.isEmpty {
            if newPlan.microWakeWord.isEmpty {
                microWakeWord = nil
            } else if let microWakeWord {
                try microWakeWord.setTriggers(newPlan.microWakeWord)
            } else if let runtime = configuration.runtime {
                let engine = try MicroWakeWordEngine(
                    triggers: newPlan.microWakeWord, models: configuration.models, runtime: runtime,
                    cutoffs: configuration.thresholds)
                engine.skip(position)
                microWakeWord = engine
            }
        }
        if newPlan.pocketSphinx != plan.pocketSphinx || (pocketSphinx == nil) != newPlan.pocketSphinx.isEmpty {
            if newPlan.pocketSphinx.isEmpty {
                pocketSphinx = nil
            } else if let pocketSphinx {
                try pocketSphinx.setTriggers(newPlan.pocketSphinx)
            } else if newPlan.scorer.isEmpty {
                // Without a scorer PocketSphinx is stage 1 itself; with one it loads only when
                // needed (process).
                let engine = try makePocketSphinx(newPlan)
                engine.skip(position)
                pocketSphinx = engine
            }
        }
        plan = newPlan
    }

    /// PocketSphinx for `plan`'s triggers; the scorer's own thresholds (probabilities) are not
    /// PocketSphinx thresholds, so its triggers keep PocketSphinx's defaults.
    private func makePocketSphinx(_ plan: Plan) throws -> PocketSphinxKeywordEngine {
        let scored = Set(plan.scorer.map(TriggerText.key))
        return try PocketSphinxKeywordEngine(
            triggers: plan.pocketSphinx,
            options: .init(
                thresholds: configuration.thresholds.filter { !scored.contains(TriggerText.key($0.key)) },
                model: configuration.pocketSphinxModel),
            resolver: configuration.resolver)
    }
}
