import ClawTalkSpeech
import Foundation
import Testing

@Suite struct MicroWakeWordModelTests {
    @Test func shippedManifestsAreSane() throws {
        let models = try MicroWakeWordModel.loadAll(in: TFLiteRuntimeTests.modelDirectory)
        let tflite = try FileManager.default.contentsOfDirectory(atPath: TFLiteRuntimeTests.modelDirectory)
            .filter { $0.hasSuffix(".tflite") }
        #expect(models.count == tflite.count)
        #expect(models.map(\.id) == models.map(\.id).sorted())
        for model in models {
            #expect((0.5...1.0).contains(model.probabilityCutoff), "\(model.id)")
            #expect(FileManager.default.fileExists(atPath: model.modelPath), "\(model.id)")
            #expect(model.modelPath.hasSuffix(".tflite"))
            #expect(FileManager.default.fileExists(atPath: model.manifestPath))
            #expect(!model.wakeWord.isEmpty)
            #expect(model.featureStepSizeMs == 10, "the feature frontend runs at 10 ms steps")
            #expect((1...50).contains(model.slidingWindowSize))
            #expect(model.tensorArenaSize > 0)
            #expect(model.trainedLanguages.contains("en"))
        }
        let nabu = try #require(models.first { $0.id == "okay_nabu" })
        #expect(nabu.wakeWord.lowercased().contains("nabu"))
        #expect(nabu.trainedLanguages.count > 1)
    }

    /// Writes `manifest` as `name.json` (and optionally a dummy model) into a scratch folder.
    private func load(_ manifest: String, writingModel: Bool = true) throws -> MicroWakeWordModel {
        try withTemporaryDirectory { directory in
            try manifest.write(to: directory.appendingPathComponent("test.json"), atomically: true, encoding: .utf8)
            if writingModel {
                try Data([0]).write(to: directory.appendingPathComponent("test.tflite"))
            }
            return try MicroWakeWordModel(manifestAt: directory.appendingPathComponent("test.json").path)
        }
    }

    private static func manifest(cutoff: String = "0.9", model: String = "test.tflite", micro: Bool = true) -> String {
        """
        {"type": "\(micro ? "micro" : "openwakeword")", "wake_word": "Test", "model": "\(model)",
         "trained_languages": ["en"],
         "micro": {"probability_cutoff": \(cutoff), "feature_step_size": 10, "sliding_window_size": 5,
                   "tensor_arena_size": 1000}}
        """
    }

    @Test func validManifestParses() throws {
        let model = try load(Self.manifest())
        #expect(model.id == "test")
        #expect(model.wakeWord == "Test")
        #expect(model.probabilityCutoff == 0.9)
        #expect(model.slidingWindowSize == 5)
        #expect(model.tensorArenaSize == 1000)
        #expect(model.trainedLanguages == ["en"])
    }

    @Test func missingModelFileIsRejected() {
        #expect(throws: SpeechError.self) { try load(Self.manifest(), writingModel: false) }
    }

    @Test(arguments: ["0", "1.5", "-0.2"])
    func cutoffOutOfRangeIsRejected(cutoff: String) {
        #expect(throws: SpeechError.self) { try load(Self.manifest(cutoff: cutoff)) }
    }

    @Test func otherManifestTypesAreRejected() {
        #expect(throws: SpeechError.self) { try load(Self.manifest(micro: false)) }
    }

    @Test func missingKeyNamesTheKey() throws {
        do {
            _ = try load(#"{"type": "micro", "wake_word": "Test", "model": "test.tflite", "micro": {}}"#)
            Issue.record("an incomplete manifest parsed")
        } catch let SpeechError.manifest(_, message) {
            #expect(message.contains("micro."), "\(message)")
        }
    }

    @Test func missingManifestIsFileNotFound() {
        #expect(throws: SpeechError.fileNotFound(path: "/nonexistent/x.json")) {
            try MicroWakeWordModel(manifestAt: "/nonexistent/x.json")
        }
    }
}
