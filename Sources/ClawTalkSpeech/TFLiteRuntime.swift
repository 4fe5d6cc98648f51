internal import CTFLite
import ClawTalkSupport
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The TensorFlow Lite C runtime (`libtensorflowlite_c.so`, TF Lite 2.x, Apache-2.0), loaded with
/// `dlopen` so a missing library is a clear run-time error instead of a link failure.
///
/// Library rules:
/// - All entry points are resolved once at load; a missing one is ``SpeechError/missingSymbol(name:library:)``.
/// - The library stays loaded for the life of the process (a C++ runtime is not worth unloading).
/// - The function table is immutable, so the runtime is `Sendable`; the objects it creates
///   (``TFLiteInterpreter``) are not thread-safe and belong to one task each.
/// - ``shared()`` loads from ``defaultSearchPaths(environment:)`` once per process.
public final class TFLiteRuntime: Sendable {
    /// The file (or loader name) that was loaded.
    public let libraryPath: String
    /// The runtime's version string, for example `2.17.1`.
    public let version: String
    /// Resolved entry points.
    let api: TFLiteAPI

    /// The library's file name, also tried last through the dynamic loader's own search.
    public static let libraryName = "libtensorflowlite_c.so"

    private static let cached = Mutex<TFLiteRuntime?>(nil)

    /// The process-wide runtime from the default search list, loaded on first use; a failure is
    /// not cached, so a later call retries (for example after `scripts/setup`).
    public static func shared() throws -> TFLiteRuntime {
        try cached.locked { cached in
            if let cached { return cached }
            let runtime = try TFLiteRuntime(searching: defaultSearchPaths())
            cached = runtime
            return runtime
        }
    }

    /// Where ``shared()`` looks, in order: `$CLAWTALK_TFLITE_LIB`,
    /// `${XDG_DATA_HOME:-$HOME/.local/share}/clawtalk/lib/`, `/usr/local/lib/clawtalk/`, then the
    /// plain library name for the dynamic loader. `environment` defaults to the process's.
    public static func defaultSearchPaths(environment: [String: String]? = nil) -> [String] {
        let environment = environment ?? ProcessInfo.processInfo.environment
        var paths: [String] = []
        if let explicit = environment["CLAWTALK_TFLITE_LIB"], !explicit.isEmpty {
            paths.append(explicit)
        }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            paths.append(xdg + "/clawtalk/lib/" + libraryName)
        } else if let home = environment["HOME"], !home.isEmpty {
            paths.append(home + "/.local/share/clawtalk/lib/" + libraryName)
        }
        paths.append("/usr/local/lib/clawtalk/" + libraryName)
        paths.append(libraryName)
        return paths
    }

    /// Loads the library at exactly `libraryPath` (a path with `/`, or a name for the loader).
    public convenience init(libraryPath: String) throws {
        try self.init(searching: [libraryPath])
    }

    /// Loads the first library in `paths` that `dlopen` accepts; throws
    /// ``SpeechError/runtimeUnavailable(searched:reason:)`` if none does.
    public init(searching paths: [String]) throws {
        var reasons: [String] = []
        var loaded: (handle: UnsafeMutableRawPointer, path: String)?
        for path in paths {
            if path.contains("/") && !FileManager.default.fileExists(atPath: path) {
                reasons.append("\(path): no such file")
                continue
            }
            if let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) {
                loaded = (handle, path)
                break
            }
            reasons.append(dlerror().map { String(cString: $0) } ?? "\(path): cannot be loaded")
        }
        guard let loaded else {
            throw SpeechError.runtimeUnavailable(
                searched: paths,
                reason: reasons.isEmpty ? "no location to search" : reasons.joined(separator: "; "))
        }
        libraryPath = loaded.path
        api = try TFLiteAPI(handle: loaded.handle, library: loaded.path)
        version = api.version().map { String(cString: $0) } ?? ""
    }
}

/// The TF Lite C entry points resolved from one loaded library (never unloaded, so the
/// pointers stay valid).
struct TFLiteAPI: Sendable {
    let version: ctflite_version_fn
    let modelCreateFromFile: ctflite_model_create_from_file_with_error_reporter_fn
    let modelDelete: ctflite_model_delete_fn
    let optionsCreate: ctflite_interpreter_options_create_fn
    let optionsDelete: ctflite_interpreter_options_delete_fn
    let optionsSetNumThreads: ctflite_interpreter_options_set_num_threads_fn
    let optionsSetErrorReporter: ctflite_interpreter_options_set_error_reporter_fn
    let interpreterCreate: ctflite_interpreter_create_fn
    let interpreterDelete: ctflite_interpreter_delete_fn
    let allocateTensors: ctflite_interpreter_allocate_tensors_fn
    let invoke: ctflite_interpreter_invoke_fn
    let inputTensorCount: ctflite_interpreter_get_tensor_count_fn
    let outputTensorCount: ctflite_interpreter_get_tensor_count_fn
    let inputTensor: ctflite_interpreter_get_input_tensor_fn
    let outputTensor: ctflite_interpreter_get_output_tensor_fn
    let tensorType: ctflite_tensor_type_fn
    let tensorNumDims: ctflite_tensor_num_dims_fn
    let tensorDim: ctflite_tensor_dim_fn
    let tensorByteSize: ctflite_tensor_byte_size_fn
    let tensorQuantizationParams: ctflite_tensor_quantization_params_fn
    let tensorCopyFromBuffer: ctflite_tensor_copy_from_buffer_fn
    let tensorCopyToBuffer: ctflite_tensor_copy_to_buffer_fn

    init(handle: UnsafeMutableRawPointer, library: String) throws {
        func required<T>(_ name: String, as type: T.Type) throws -> T {
            guard let symbol = dlsym(handle, name) else {
                throw SpeechError.missingSymbol(name: name, library: library)
            }
            return unsafeBitCast(symbol, to: type)
        }
        version = try required("TfLiteVersion", as: ctflite_version_fn.self)
        modelCreateFromFile = try required(
            "TfLiteModelCreateFromFileWithErrorReporter",
            as: ctflite_model_create_from_file_with_error_reporter_fn.self)
        modelDelete = try required("TfLiteModelDelete", as: ctflite_model_delete_fn.self)
        optionsCreate = try required(
            "TfLiteInterpreterOptionsCreate", as: ctflite_interpreter_options_create_fn.self)
        optionsDelete = try required(
            "TfLiteInterpreterOptionsDelete", as: ctflite_interpreter_options_delete_fn.self)
        optionsSetNumThreads = try required(
            "TfLiteInterpreterOptionsSetNumThreads", as: ctflite_interpreter_options_set_num_threads_fn.self)
        optionsSetErrorReporter = try required(
            "TfLiteInterpreterOptionsSetErrorReporter",
            as: ctflite_interpreter_options_set_error_reporter_fn.self)
        interpreterCreate = try required("TfLiteInterpreterCreate", as: ctflite_interpreter_create_fn.self)
        interpreterDelete = try required("TfLiteInterpreterDelete", as: ctflite_interpreter_delete_fn.self)
        allocateTensors = try required(
            "TfLiteInterpreterAllocateTensors", as: ctflite_interpreter_allocate_tensors_fn.self)
        invoke = try required("TfLiteInterpreterInvoke", as: ctflite_interpreter_invoke_fn.self)
        inputTensorCount = try required(
            "TfLiteInterpreterGetInputTensorCount", as: ctflite_interpreter_get_tensor_count_fn.self)
        outputTensorCount = try required(
            "TfLiteInterpreterGetOutputTensorCount", as: ctflite_interpreter_get_tensor_count_fn.self)
        inputTensor = try required(
            "TfLiteInterpreterGetInputTensor", as: ctflite_interpreter_get_input_tensor_fn.self)
        outputTensor = try required(
            "TfLiteInterpreterGetOutputTensor", as: ctflite_interpreter_get_output_tensor_fn.self)
        tensorType = try required("TfLiteTensorType", as: ctflite_tensor_type_fn.self)
        tensorNumDims = try required("TfLiteTensorNumDims", as: ctflite_tensor_num_dims_fn.self)
        tensorDim = try required("TfLiteTensorDim", as: ctflite_tensor_dim_fn.self)
        tensorByteSize = try required("TfLiteTensorByteSize", as: ctflite_tensor_byte_size_fn.self)
        tensorQuantizationParams = try required(
            "TfLiteTensorQuantizationParams", as: ctflite_tensor_quantization_params_fn.self)
        tensorCopyFromBuffer = try required(
            "TfLiteTensorCopyFromBuffer", as: ctflite_tensor_copy_from_buffer_fn.self)
        tensorCopyToBuffer = try required("TfLiteTensorCopyToBuffer", as: ctflite_tensor_copy_to_buffer_fn.self)
    }
}
