/// One microWakeWord model streaming over ``MicroFrontend`` frames: collects `stride` frames,
/// quantises them, runs the interpreter, keeps the sliding window of outputs and applies the
/// cutoff and refractory period. Owned by ``MicroWakeWordDetector``.
final class MicroWakeWordStream {
    let model: MicroWakeWordModel
    let cutoff: Double
    /// Frames per inference (the input tensor's dimension 1).
    let stride: Int
    private let channels: Int
    private let interpreter: TFLiteInterpreter
    private let inputScale: Double
    private let inputZeroPoint: Double
    private let inputRange: ClosedRange<Double>
    private let inputIsSigned: Bool
    private let outputScale: Double
    private let outputZeroPoint: Int
    private let outputIsSigned: Bool
    /// Refractory period in samples.
    private let refractorySamples: Int

    /// Quantised input for the next inference (`stride × channels` bytes).
    private let input: UnsafeMutableRawBufferPointer
    private var framesBuffered = 0
    private let output: UnsafeMutableRawBufferPointer
    /// Ring of the last `slidingWindowSize` probabilities.
    private var window: [Double]
    private var windowCount = 0
    private var windowNext = 0
    /// No detection before this sample count (end of the refractory period).
    private var quietUntil = 0

    init(
        model: MicroWakeWordModel, runtime: TFLiteRuntime, channels: Int, cutoff: Double,
        refractorySamples: Int
    ) throws {
        let interpreter = try TFLiteInterpreter(runtime: runtime, modelPath: model.modelPath)
        func fail(_ message: String) -> SpeechError {
            .tflite(operation: "use model \(model.id)", message: message)
        }
        guard interpreter.inputs.count == 1, interpreter.outputs.count == 1 else {
            let counts = "\(interpreter.inputs.count) and \(interpreter.outputs.count)"
            throw fail("needs one input and one output tensor, has \(counts)")
        }
        let inputInfo = interpreter.inputs[0]
        let outputInfo = interpreter.outputs[0]
        guard inputInfo.shape.count == 3, inputInfo.shape[0] == 1, inputInfo.shape[1] >= 1,
            inputInfo.shape[2] == channels, inputInfo.type == .int8 || inputInfo.type == .uint8,
            inputInfo.scale > 0
        else {
            throw fail(
                "input is \(inputInfo.type) \(inputInfo.shape), expected quantised int8/uint8 [1, stride, \(channels)]")
        }
        guard outputInfo.byteSize == 1, outputInfo.type == .int8 || outputInfo.type == .uint8, outputInfo.scale > 0
        else {
            throw fail("output is \(outputInfo.type) \(outputInfo.shape), expected one quantised int8/uint8 value")
        }
        self.model = model
        self.cutoff = cutoff
        self.interpreter = interpreter
        self.channels = channels
        stride = inputInfo.shape[1]
        inputScale = Double(inputInfo.scale)
        inputZeroPoint = Double(inputInfo.zeroPoint)
        inputIsSigned = inputInfo.type == .int8
        inputRange = inputIsSigned ? -128...127 : 0...255
        outputScale = Double(outputInfo.scale)
        outputZeroPoint = outputInfo.zeroPoint
        outputIsSigned = outputInfo.type == .int8
        self.refractorySamples = refractorySamples
        input = .allocate(byteCount: inputInfo.byteSize, alignment: 8)
        input.initializeMemory(as: UInt8.self, repeating: 0)
        output = .allocate(byteCount: 1, alignment: 8)
        output.initializeMemory(as: UInt8.self, repeating: 0)
        window = [Double](repeating: 0, count: model.slidingWindowSize)
    }

    deinit {
        input.deallocate()
        output.deallocate()
    }

    /// Forgets buffered frames, the sliding window and the model's streaming state.
    func reset() throws {
        try interpreter.reset()
        framesBuffered = 0
        windowCount = 0
        windowNext = 0
        quietUntil = 0
    }

    /// Adds one frontend frame; after every `stride` frames runs the model and returns the
    /// inference and, if it is one, a detection. `sampleCount` is the stream position.
    func append(_ frame: UnsafeBufferPointer<UInt16>, sampleCount: Int, sampleRate: Int) throws -> (
        WakeInference?, WakeDetection?
    ) {
        let base = framesBuffered * channels
        for channel in 0..<channels {
            // Same arithmetic as the reference wrapper (float64, round half to even), but
            // clamped: numpy's int8 cast would wrap features above ~26.05 to negative values.
            let feature = Double(frame[channel]) * Double(MicroFrontend.featureScale)
            let quantised = (feature / inputScale + inputZeroPoint).rounded(.toNearestOrEven)
            let clamped = Int(min(max(quantised, inputRange.lowerBound), inputRange.upperBound))
            input[base + channel] = inputIsSigned ? UInt8(bitPattern: Int8(clamped)) : UInt8(clamped)
        }
        framesBuffered += 1
        guard framesBuffered == stride else { return (nil, nil) }
        framesBuffered = 0
        try interpreter.copyInput(UnsafeRawBufferPointer(input))
        try interpreter.invoke()
        try interpreter.copyOutput(into: output)
        let raw = outputIsSigned ? Int(Int8(bitPattern: output[0])) : Int(output[0])
        let probability = Double(raw - outputZeroPoint) * outputScale
        window[windowNext] = probability
        windowNext = (windowNext + 1) % window.count
        windowCount = min(windowCount + 1, window.count)
        let timestamp = Double(sampleCount) / Double(sampleRate)
        guard windowCount == window.count else {
            return (WakeInference(modelID: model.id, probability: probability, mean: nil, timestamp: timestamp), nil)
        }
        let mean = window.reduce(0, +) / Double(window.count)
        let inference = WakeInference(modelID: model.id, probability: probability, mean: mean, timestamp: timestamp)
        // Strictly above the cutoff, as pymicro-wakeword decides.
        guard mean > cutoff, sampleCount >= quietUntil else { return (inference, nil) }
        quietUntil = sampleCount + refractorySamples
        windowCount = 0
        windowNext = 0
        let detection = WakeDetection(
            modelID: model.id, wakeWord: model.wakeWord, probability: mean, timestamp: timestamp)
        return (inference, detection)
    }
}
