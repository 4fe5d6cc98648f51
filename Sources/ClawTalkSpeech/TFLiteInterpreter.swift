internal import CTFLite
import Foundation

/// One TF Lite model with its interpreter options and interpreter, tensors allocated.
///
/// Library rules:
/// - An interpreter is not thread-safe: this owner is not `Sendable`; create and use it in one
///   task (for example the wake-word consumer), one interpreter per audio stream.
/// - Streaming models (microWakeWord) keep state in resource variables between ``invoke()``
///   calls; ``reset()`` returns to the freshly loaded state by recreating the interpreter.
///   (`TfLiteInterpreterResetVariableTensors` is not used: seen with `hey_mycroft`, outputs after
///   it differ from a fresh interpreter's — probably because it zero-fills the variables, and
///   zero is not the initial value of these int8 buffers.)
/// - TF Lite's error reporter is captured per interpreter, so failures carry its own message.
public final class TFLiteInterpreter {
    /// Element type of a tensor.
    public enum ElementType: Sendable, Hashable, CustomStringConvertible {
        /// 32-bit float.
        case float32
        /// 32-bit signed integer.
        case int32
        /// Unsigned byte (quantised).
        case uint8
        /// Signed byte (quantised).
        case int8
        /// 16-bit signed integer.
        case int16
        /// Any other TF Lite type code.
        case other(Int)

        init(_ type: TfLiteType) {
            switch type {
            case kTfLiteFloat32: self = .float32
            case kTfLiteInt32: self = .int32
            case kTfLiteUInt8: self = .uint8
            case kTfLiteInt8: self = .int8
            case kTfLiteInt16: self = .int16
            default: self = .other(Int(type.rawValue))
            }
        }

        /// For example `int8`.
        public var description: String {
            switch self {
            case .float32: "float32"
            case .int32: "int32"
            case .uint8: "uint8"
            case .int8: "int8"
            case .int16: "int16"
            case .other(let code): "type\(code)"
            }
        }
    }

    /// Type, shape and quantisation of an input or output tensor.
    public struct TensorInfo: Sendable, Hashable {
        /// Element type.
        public var type: ElementType
        /// Dimensions, outermost first (for example `[1, 3, 40]`).
        public var shape: [Int]
        /// Quantisation scale (real = scale × (q − zeroPoint)); 0 when not quantised.
        public var scale: Float
        /// Quantisation zero point.
        public var zeroPoint: Int
        /// Size of the tensor's data in bytes.
        public var byteSize: Int
    }

    private let runtime: TFLiteRuntime
    private let model: OpaquePointer
    private let options: OpaquePointer
    private var interpreter: OpaquePointer
    /// Receives TF Lite's error reports for this model and interpreter; freed last.
    private let errors: UnsafeMutablePointer<ctflite_error_sink>

    /// The model's input tensors.
    public let inputs: [TensorInfo]
    /// The model's output tensors (shapes as after allocation).
    public let outputs: [TensorInfo]
    /// The model file.
    public let modelPath: String

    /// Loads `modelPath`, creates an interpreter with `threads` threads and allocates tensors.
    public init(runtime: TFLiteRuntime, modelPath: String, threads: Int = 1) throws {
        let api = runtime.api
        let errors = UnsafeMutablePointer<ctflite_error_sink>.allocate(capacity: 1)
        errors.initialize(to: ctflite_error_sink())
        var model: OpaquePointer?
        var options: OpaquePointer?
        var interpreter: OpaquePointer?
        func cleanUp() {
            if let interpreter { api.interpreterDelete(interpreter) }
            if let options { api.optionsDelete(options) }
            if let model { api.modelDelete(model) }
            errors.deallocate()
        }
        do {
            guard FileManager.default.fileExists(atPath: modelPath) else {
                throw SpeechError.fileNotFound(path: modelPath)
            }
            model = api.modelCreateFromFile(modelPath, ctflite_error_sink_reporter(), errors)
            guard let model else {
                throw SpeechError.tflite(operation: "load model \(modelPath)", message: Self.take(errors))
            }
            options = api.optionsCreate()
            guard let options else {
                throw SpeechError.tflite(operation: "create interpreter options", message: "")
            }
            api.optionsSetNumThreads(options, Int32(clamping: max(1, threads)))
            api.optionsSetErrorReporter(options, ctflite_error_sink_reporter(), errors)
            interpreter = api.interpreterCreate(model, options)
            guard let interpreter else {
                throw SpeechError.tflite(operation: "create interpreter", message: Self.take(errors))
            }
            if api.allocateTensors(interpreter) != kTfLiteOk {
                throw SpeechError.tflite(operation: "allocate tensors", message: Self.take(errors))
            }
            inputs = (0..<Int(api.inputTensorCount(interpreter))).map {
                Self.info(api, api.inputTensor(interpreter, Int32($0)))
            }
            outputs = (0..<Int(api.outputTensorCount(interpreter))).map {
                Self.info(api, api.outputTensor(interpreter, Int32($0)))
            }
        } catch {
            cleanUp()
            throw error
        }
        self.runtime = runtime
        self.model = model!
        self.options = options!
        self.interpreter = interpreter!
        self.errors = errors
        self.modelPath = modelPath
    }

    deinit {
        let api = runtime.api
        api.interpreterDelete(interpreter)
        api.optionsDelete(options)
        api.modelDelete(model)
        errors.deallocate()
    }

    /// Copies `bytes` into input tensor `index`; the count must equal its ``TensorInfo/byteSize``.
    public func copyInput(_ bytes: UnsafeRawBufferPointer, index: Int = 0) throws {
        precondition(inputs.indices.contains(index), "input tensor \(index) out of range")
        guard bytes.count == inputs[index].byteSize else {
            throw SpeechError.tensorSize(index: index, expected: inputs[index].byteSize, actual: bytes.count)
        }
        let api = runtime.api
        let tensor = api.inputTensor(interpreter, Int32(index))
        try check(api.tensorCopyFromBuffer(tensor, bytes.baseAddress, bytes.count), "copy input \(index)")
    }

    /// Runs the model once.
    public func invoke() throws {
        try check(runtime.api.invoke(interpreter), "invoke")
    }

    /// The raw bytes of output tensor `index` after ``invoke()``.
    public func copyOutput(index: Int = 0) -> [UInt8] {
        precondition(outputs.indices.contains(index), "output tensor \(index) out of range")
        let count = outputs[index].byteSize
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            // Cannot fail: the size matches the tensor and the pointer is valid.
            _ = try? copyOutput(index: index, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// Copies output tensor `index` into `buffer` (exactly its byte size), without allocating.
    public func copyOutput(index: Int = 0, into buffer: UnsafeMutableRawBufferPointer) throws {
        precondition(outputs.indices.contains(index), "output tensor \(index) out of range")
        guard buffer.count == outputs[index].byteSize else {
            throw SpeechError.tensorSize(index: index, expected: outputs[index].byteSize, actual: buffer.count)
        }
        let api = runtime.api
        let tensor = api.outputTensor(interpreter, Int32(index))
        try check(api.tensorCopyToBuffer(tensor, buffer.baseAddress, buffer.count), "copy output \(index)")
    }

    /// Forgets the stream state: a new interpreter on the already loaded model, tensors
    /// allocated, exactly as after `init` (sub-millisecond for the wake-word models). On failure
    /// the current interpreter is kept.
    public func reset() throws {
        let api = runtime.api
        guard let fresh = api.interpreterCreate(model, options) else {
            throw SpeechError.tflite(operation: "create interpreter", message: Self.take(errors))
        }
        guard api.allocateTensors(fresh) == kTfLiteOk else {
            api.interpreterDelete(fresh)
            throw SpeechError.tflite(operation: "allocate tensors", message: Self.take(errors))
        }
        api.interpreterDelete(interpreter)
        interpreter = fresh
    }

    /// Input `index`'s quantisation read through the C helper instead of Swift's own call
    /// through the function pointer (a check of the by-value struct return, used by tests).
    func inputQuantizationThroughC(index: Int) -> (scale: Float, zeroPoint: Int) {
        let api = runtime.api
        let params = ctflite_call_quantization_params(
            api.tensorQuantizationParams, api.inputTensor(interpreter, Int32(index)))
        return (params.scale, Int(params.zero_point))
    }

    // MARK: - Private

    private func check(_ status: TfLiteStatus, _ operation: String) throws {
        guard status != kTfLiteOk else { return }
        throw SpeechError.tflite(operation: operation, message: Self.take(errors))
    }

    /// Returns and clears what the error reporter collected.
    private static func take(_ sink: UnsafeMutablePointer<ctflite_error_sink>) -> String {
        let length = min(sink.pointee.length, 1023)
        let text = withUnsafeBytes(of: &sink.pointee.message) { raw in
            String(decoding: raw.prefix(length), as: UTF8.self)
        }
        sink.pointee.length = 0
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func info(_ api: TFLiteAPI, _ tensor: OpaquePointer?) -> TensorInfo {
        guard let tensor else { return TensorInfo(type: .other(0), shape: [], scale: 0, zeroPoint: 0, byteSize: 0) }
        let shape = (0..<Int(api.tensorNumDims(tensor))).map { Int(api.tensorDim(tensor, Int32($0))) }
        let quantization = api.tensorQuantizationParams(tensor)
        return TensorInfo(
            type: ElementType(api.tensorType(tensor)), shape: shape, scale: quantization.scale,
            zeroPoint: Int(quantization.zero_point), byteSize: api.tensorByteSize(tensor))
    }
}
