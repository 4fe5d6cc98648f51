import ClawTalkAudio
public import ClawTalkSpeech
public import ClawTalkSupport
import Foundation

/// Builds the node's wake pipeline (``KeywordSpotter`` stage 1, optional ``TranscriptVerifier``,
/// ``TwoStageWakeDetector`` gate) from the `wake.*` settings: one place for `clawtalk bench wake`
/// and the live voice wake of `clawtalk run`.
public struct WakeDetectorFactory {
    /// Allowed stage-1 engines (`wake.engine`).
    public var selection: KeywordSpotter.Selection
    /// microWakeWord models (empty when none are installed).
    public var models: [MicroWakeWordModel]
    /// The TF Lite runtime, nil when it could not be loaded (microWakeWord then unused).
    public var runtime: TFLiteRuntime?
    /// Thresholds by trigger or model id (`wake.thresholds`).
    public var thresholds: [String: Double]
    /// Pronunciations for PocketSphinx keyphrases.
    public var resolver: PronunciationResolver
    /// The Whisper keyword scorer for triggers without a model (nil: PocketSphinx takes them).
    public var scorer: WhisperKeywordEngine.Configuration? = nil
    /// Told when the scorer's connection comes or goes.
    public var onScorerLink: (@Sendable (WhisperKeywordEngine.LinkEvent) -> Void)? = nil

    /// The scorer configuration of `wake.*`, nil when `wake.scorer` is off or `selection` is not
    /// `auto`; `paths` locate the node's own scorer socket.
    public static func scorer(
        _ wake: WakeSettings, selection: KeywordSpotter.Selection, thresholds: [String: Double], paths: XDGPaths
    ) -> WhisperKeywordEngine.Configuration? {
        guard wake.scorer != .off, selection == .auto else { return nil }
        return WhisperKeywordEngine.Configuration(
            address: wake.address(paths: paths), thresholds: thresholds, aliases: wake.aliases,
            acousticHeads: wake.acousticHeads)
    }

    /// Loads the models, the runtime and the pronunciation dictionary. A missing microWakeWord
    /// model directory or runtime is not an error (PocketSphinx takes every trigger under
    /// `auto`): `notice` gets the reason. Throws when the pronunciation dictionary is missing.
    public static func load(
        selection: KeywordSpotter.Selection, thresholds: [String: Double], environment: [String: String],
        notice: (String) -> Void
    ) throws -> WakeDetectorFactory {
        var models: [MicroWakeWordModel] = []
        var runtime: TFLiteRuntime?
        if selection != .pocketsphinx {
            do {
                let directory = try ModelDirectory.locate(environment: environment)
                models = try MicroWakeWordModel.loadAll(in: directory.appendingPathComponent("microwakeword").path)
                runtime = try TFLiteRuntime.shared()
            } catch {
                notice("microWakeWord unavailable: \(error)")
                models = []
                runtime = nil
            }
        }
        return WakeDetectorFactory(
            selection: selection, models: models, runtime: runtime, thresholds: thresholds,
            resolver: try PronunciationResolver(dictionary: .shared()))
    }

    /// Which engine would take which trigger.
    public func plan(triggers: [String], selection: KeywordSpotter.Selection? = nil) -> KeywordSpotter.Plan {
        let selection = selection ?? self.selection
        return KeywordSpotter.plan(
            triggers: triggers, selection: selection, models: models, microWakeWordAvailable: runtime != nil,
            scorer: scorer != nil && selection == .auto)
    }

    /// A stage-1 spotter for `triggers`; `selection` and `thresholds` override the factory's.
    public func spotter(
        triggers: [String], selection: KeywordSpotter.Selection? = nil, thresholds: [String: Double]? = nil
    ) throws -> sending KeywordSpotter {
        let selection = selection ?? self.selection
        let thresholds = thresholds ?? self.thresholds
        var scorer = selection == .auto ? self.scorer : nil
        scorer?.thresholds = thresholds
        return try KeywordSpotter(
            triggers: triggers,
            configuration: .init(
                selection: selection, models: models, runtime: runtime, thresholds: thresholds, resolver: resolver,
                scorer: scorer, onScorerLink: onScorerLink))
    }

    /// The whole pipeline for `triggers`.
    public func detector(triggers: [String], verifier: TranscriptVerifier?) throws -> sending TwoStageWakeDetector {
        TwoStageWakeDetector(engine: try spotter(triggers: triggers), verifier: verifier)
    }

    /// PocketSphinx dictation as the verifier, with the triggers' pronunciations that are not in
    /// the dictionary added.
    public func pocketSphinxVerifier(triggers: [String]) throws -> TranscriptVerifier {
        var added: [String: String] = [:]
        for trigger in triggers {
            for pronunciation in try resolver.pronounce(phrase: trigger) where pronunciation.source != .dictionary {
                added[pronunciation.word] = pronunciation.phones.joined(separator: " ")
            }
        }
        return .pocketSphinx(try PocketSphinxDecoder(mode: .languageModel, pronunciations: added))
    }

    /// The Whisper verifier of `clawtalk run`: the Wyoming server at
    /// ``STTSettings/address(paths:)``. Throws ``NodeServiceError/unavailable(_:)`` (naming
    /// `option`) when no server answers.
    public static func wyomingVerifier(stt: STTSettings, paths: XDGPaths, option: String) async throws
        -> TranscriptVerifier
    {
        let address = stt.address(paths: paths)
        let server = WyomingTranscriber(configuration: .init(address: address))
        do {
            _ = try await server.prepare()
        } catch {
            throw NodeServiceError.unavailable(
                "\(option): no Wyoming server at \(address) (\(error)); "
                    + "start one or set stt.wyomingHost/stt.wyomingPort or stt.wyomingSocket")
        }
        return verifier(transcriber: server, language: stt.language ?? "en")
    }

    /// A verifier over any ``Transcriber`` (the `stt.*` chain: Whisper via Wyoming, PocketSphinx
    /// fallback); the detector's prompt (`"a, b, c."`) becomes the transcriber's trigger prompt.
    /// It returns the text before prompt-echo filtering: with one trigger the echo filter would
    /// drop the very answer wanted ("computer" for the prompt "computer."), and the detector
    /// applies its own echo rule (only with two or more triggers).
    public static func verifier(transcriber: any Transcriber, language: String?) -> TranscriptVerifier {
        TranscriptVerifier(name: transcriber.name) { buffer, prompt in
            let options = TranscriptionOptions(language: language, prompt: promptPhrases(prompt))
            return try await transcriber.transcribe(buffer, options: options).rawText
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// `"a, b, c."` → `["a", "b", "c"]`.
    public static func promptPhrases(_ prompt: String?) -> [String] {
        guard var text = prompt else { return [] }
        if text.hasSuffix(".") { text.removeLast() }
        return text.components(separatedBy: ", ").filter { !$0.isEmpty }
    }
}
