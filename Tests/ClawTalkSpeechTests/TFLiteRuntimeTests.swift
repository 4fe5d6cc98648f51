import Foundation
import Testing

@testable import ClawTalkSpeech

/// The TF Lite runtime installed by `scripts/setup` (see BRIEF: ~/.local/share/clawtalk/lib) and
/// the microWakeWord models in `Models/microwakeword`.
@Suite struct TFLiteRuntimeTests {
    static let modelDirectory = repositoryRoot().appendingPathComponent("Models/microwakeword").path
    static let okayNabu = modelDirectory + "/okay_nabu.tflite"

    @Test func sharedRuntimeLoadsAndReportsItsVersion() throws {
        let runtime = try TFLiteRuntime.shared()
        #expect(runtime.version.hasPrefix("2."), "version \(runtime.version)")
        #expect(try TFLiteRuntime.shared() === runtime)
        #expect(TFLiteRuntime.defaultSearchPaths().contains(runtime.libraryPath))
    }

    @Test func okayNabuHasTheStreamingShapes() throws {
        let interpreter = try TFLiteInterpreter(runtime: TFLiteRuntime.shared(), modelPath: Self.okayNabu)
        let input = try #require(interpreter.inputs.first)
        let output = try #require(interpreter.outputs.first)
        #expect(interpreter.inputs.count == 1 && interpreter.outputs.count == 1)
        #expect(input.type == .int8)
        #expect(input.shape == [1, 3, 40])
        #expect(input.byteSize == 120)
        #expect(input.scale > 0 && input.scale < 1)
        #expect((-128...127).contains(input.zeroPoint))
        #expect(output.type == .uint8)
        #expect(output.shape == [1, 1])
        #expect(output.byteSize == 1)
        #expect(output.scale > 0)
        // The struct returned by value through the Swift function pointer matches the C call.
        let viaC = interpreter.inputQuantizationThroughC(index: 0)
        #expect(viaC.scale == input.scale && viaC.zeroPoint == input.zeroPoint)
    }

    @Test func invokeOnSilentFeaturesGivesALowProbability() throws {
        let interpreter = try TFLiteInterpreter(runtime: TFLiteRuntime.shared(), modelPath: Self.okayNabu)
        let input = interpreter.inputs[0]
        let output = interpreter.outputs[0]
        // Zero features, quantised: round(0 / scale) + zeroPoint.
        let features = [Int8](repeating: Int8(input.zeroPoint), count: input.byteSize)
        var probabilities: [Double] = []
        for _ in 0..<10 {
            try features.withUnsafeBytes { try interpreter.copyInput($0) }
            try interpreter.invoke()
            let bytes = interpreter.copyOutput()
            #expect(bytes.count == 1)
            probabilities.append(Double(output.scale) * Double(Int(bytes[0]) - output.zeroPoint))
        }
        for probability in probabilities {
            #expect((0.0...1.0).contains(probability))
            #expect(probability < 0.5, "silence must not look like the wake word")
        }
    }

    /// The models are stateful: constant "silence" features give a rising, then settling output
    /// (seen with `hey_mycroft`), so the first outputs of a stream differ from later ones.
    @Test func resetRestartsTheStream() throws {
        let interpreter = try TFLiteInterpreter(
            runtime: TFLiteRuntime.shared(), modelPath: Self.modelDirectory + "/hey_mycroft.tflite")
        let silence = [Int8](repeating: Int8(interpreter.inputs[0].zeroPoint), count: interpreter.inputs[0].byteSize)
        func run(_ frames: Int) throws -> [UInt8] {
            var outputs: [UInt8] = []
            for _ in 0..<frames {
                try silence.withUnsafeBytes { try interpreter.copyInput($0) }
                try interpreter.invoke()
                outputs.append(interpreter.copyOutput()[0])
            }
            return outputs
        }
        let first = try run(12)
        let continued = try run(12)
        try interpreter.reset()
        let afterReset = try run(12)
        #expect(continued != first, "the stream state must carry over between invocations")
        #expect(afterReset == first)
        // A fresh interpreter agrees.
        let fresh = try TFLiteInterpreter(runtime: TFLiteRuntime.shared(), modelPath: interpreter.modelPath)
        var freshOutputs: [UInt8] = []
        for _ in 0..<12 {
            try silence.withUnsafeBytes { try fresh.copyInput($0) }
            try fresh.invoke()
            freshOutputs.append(fresh.copyOutput()[0])
        }
        #expect(freshOutputs == first)
    }

    @Test func allShippedModelsLoadWithTheSameInterface() throws {
        let models = try MicroWakeWordModel.loadAll(in: Self.modelDirectory)
        #expect(models.count == 4)
        for model in models {
            let interpreter = try TFLiteInterpreter(runtime: TFLiteRuntime.shared(), modelPath: model.modelPath)
            #expect(interpreter.inputs.map(\.shape) == [[1, 3, 40]], "\(model.id)")
            #expect(interpreter.outputs.map(\.type) == [.uint8], "\(model.id)")
        }
    }

    @Test func wrongInputSizeIsRejected() throws {
        let interpreter = try TFLiteInterpreter(runtime: TFLiteRuntime.shared(), modelPath: Self.okayNabu)
        let tooShort = [Int8](repeating: 0, count: 40)
        #expect(throws: SpeechError.tensorSize(index: 0, expected: 120, actual: 40)) {
            try tooShort.withUnsafeBytes { try interpreter.copyInput($0) }
        }
        var output = [UInt8](repeating: 0, count: 4)
        #expect(throws: SpeechError.tensorSize(index: 0, expected: 1, actual: 4)) {
            try output.withUnsafeMutableBytes { try interpreter.copyOutput(into: $0) }
        }
    }

    @Test func missingModelFileIsAClearError() throws {
        let path = Self.modelDirectory + "/no_such_model.tflite"
        #expect(throws: SpeechError.fileNotFound(path: path)) {
            try TFLiteInterpreter(runtime: TFLiteRuntime.shared(), modelPath: path)
        }
    }

    @Test func aFileThatIsNotAModelReportsTFLitesMessage() throws {
        let notAModel = Self.modelDirectory + "/okay_nabu.json"
        do {
            _ = try TFLiteInterpreter(runtime: TFLiteRuntime.shared(), modelPath: notAModel)
            Issue.record("a JSON file loaded as a model")
        } catch let SpeechError.tflite(operation, message) {
            #expect(operation.contains("load model"))
            #expect(!message.isEmpty, "the error reporter's text should be kept")
        }
    }

    @Test func bogusLibraryPathIsRuntimeUnavailable() throws {
        let bogus = "/nonexistent/clawtalk/libtensorflowlite_c.so"
        do {
            _ = try TFLiteRuntime(libraryPath: bogus)
            Issue.record("a missing library loaded")
        } catch let error as SpeechError {
            guard case .runtimeUnavailable(let searched, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(searched == [bogus])
            #expect(reason.contains(bogus))
            #expect(error.description.contains("scripts/setup"))
        }
    }

    @Test func aLibraryWithoutTheAPIIsRejectedByName() throws {
        // libespeak-ng is a real shared library without any TfLite function.
        let library = "libespeak-ng.so.1"
        #expect(throws: SpeechError.missingSymbol(name: "TfLiteVersion", library: library)) {
            try TFLiteRuntime(libraryPath: library)
        }
    }

    @Test func searchOrderFollowsTheEnvironment() {
        let name = TFLiteRuntime.libraryName
        #expect(
            TFLiteRuntime.defaultSearchPaths(environment: [
                "CLAWTALK_TFLITE_LIB": "/opt/tfl.so", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u",
            ]) == ["/opt/tfl.so", "/xdg/clawtalk/lib/\(name)", "/usr/local/lib/clawtalk/\(name)", name])
        #expect(
            TFLiteRuntime.defaultSearchPaths(environment: ["HOME": "/home/u"])
                == ["/home/u/.local/share/clawtalk/lib/\(name)", "/usr/local/lib/clawtalk/\(name)", name])
    }
}
