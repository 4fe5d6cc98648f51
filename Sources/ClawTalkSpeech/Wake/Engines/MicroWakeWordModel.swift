import Foundation

/// A microWakeWord model as described by the JSON manifest that sits next to its `.tflite` file
/// (the format of the esphome / pymicro-wakeword model collection, `"type": "micro"`).
public struct MicroWakeWordModel: Sendable, Hashable {
    /// Model name: the manifest's file name without `.json`, for example `okay_nabu`.
    public var id: String
    /// The phrase the model detects, for example `Okay Nabu`.
    public var wakeWord: String
    /// Absolute path of the `.tflite` file.
    public var modelPath: String
    /// Absolute path of the manifest.
    public var manifestPath: String
    /// Detection threshold for the mean probability over ``slidingWindowSize`` inferences (0...1).
    public var probabilityCutoff: Double
    /// Milliseconds between feature frames (10 for all shipped models).
    public var featureStepSizeMs: Int
    /// Number of recent inferences averaged before comparing with the cutoff.
    public var slidingWindowSize: Int
    /// Working memory the model needs on a microcontroller, in bytes (informational here).
    public var tensorArenaSize: Int
    /// Language codes the model was trained on, for example `["en"]`.
    public var trainedLanguages: [String]
    /// Manifest author, if given.
    public var author: String?
    /// Manifest format version, if given.
    public var version: Int?

    /// Reads and checks the manifest at `manifestPath`; the model file it names must exist.
    public init(manifestAt manifestPath: String) throws {
        let manifestURL = URL(fileURLWithPath: manifestPath).standardizedFileURL
        let path = manifestURL.path
        func fail(_ message: String) -> SpeechError { .manifest(path: path, message: message) }
        let data: Data
        do {
            data = try Data(contentsOf: manifestURL)
        } catch {
            throw FileManager.default.fileExists(atPath: path)
                ? fail("unreadable: \(error.localizedDescription)") : SpeechError.fileNotFound(path: path)
        }
        let manifest: Manifest
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw fail("missing '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))'")
        } catch let DecodingError.typeMismatch(_, context) {
            throw fail("wrong type for '\(context.codingPath.map(\.stringValue).joined(separator: "."))'")
        } catch {
            throw fail("invalid JSON")
        }
        guard manifest.type == "micro" else { throw fail("type '\(manifest.type)' is not 'micro'") }
        let micro = manifest.micro
        guard micro.probability_cutoff > 0, micro.probability_cutoff <= 1 else {
            throw fail("probability_cutoff \(micro.probability_cutoff) is outside (0, 1]")
        }
        guard micro.sliding_window_size > 0, micro.feature_step_size > 0 else {
            throw fail("sliding_window_size and feature_step_size must be positive")
        }
        let modelURL = manifestURL.deletingLastPathComponent().appendingPathComponent(manifest.model)
        guard FileManager.default.fileExists(atPath: modelURL.path) else {
            throw fail("model file \(modelURL.path) does not exist")
        }
        id = manifestURL.deletingPathExtension().lastPathComponent
        wakeWord = manifest.wake_word
        modelPath = modelURL.path
        self.manifestPath = path
        probabilityCutoff = micro.probability_cutoff
        featureStepSizeMs = micro.feature_step_size
        slidingWindowSize = micro.sliding_window_size
        tensorArenaSize = micro.tensor_arena_size ?? 0
        trainedLanguages = manifest.trained_languages ?? []
        author = manifest.author
        version = manifest.version
    }

    /// The models of every `*.json` manifest in `directory`, sorted by ``id``; throws on the
    /// first broken or non-microWakeWord manifest so a bad install is noticed.
    public static func loadAll(in directory: String) throws -> [MicroWakeWordModel] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw SpeechError.fileNotFound(path: directory)
        }
        let base = URL(fileURLWithPath: directory, isDirectory: true)
        return try names.filter { $0.hasSuffix(".json") }.sorted()
            .map { try MicroWakeWordModel(manifestAt: base.appendingPathComponent($0).path) }
    }
}

/// The manifest's JSON shape (keys as in the files).
private struct Manifest: Decodable {
    struct Micro: Decodable {
        var probability_cutoff: Double
        var feature_step_size: Int
        var sliding_window_size: Int
        var tensor_arena_size: Int?
    }

    var type: String
    var wake_word: String
    var model: String
    var author: String?
    var version: Int?
    var trained_languages: [String]?
    var micro: Micro
}
