// The subset of the TensorFlow Lite C API that clawtalk uses, written for this project.
//
// The runtime (libtensorflowlite_c.so, TF Lite 2.x C API) is loaded with dlopen at run time, so
// this header declares no functions from it: only its types and one function-pointer typedef per
// entry point, which Swift resolves with dlsym and unsafeBitCast. The enum values and the
// TfLiteQuantizationParams layout follow TF Lite's stable public C API (c_api_types.h).
#pragma once

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// ---- Opaque objects ----
typedef struct TfLiteModel TfLiteModel;
typedef struct TfLiteInterpreterOptions TfLiteInterpreterOptions;
typedef struct TfLiteInterpreter TfLiteInterpreter;
typedef struct TfLiteTensor TfLiteTensor;

// ---- Plain types ----
/// Result of most calls; everything but kTfLiteOk is a failure.
typedef enum TfLiteStatus {
    kTfLiteOk = 0,
    kTfLiteError = 1,
    kTfLiteDelegateError = 2,
    kTfLiteApplicationError = 3,
} TfLiteStatus;

/// Element type of a tensor (only the values clawtalk distinguishes are named).
typedef enum TfLiteType {
    kTfLiteNoType = 0,
    kTfLiteFloat32 = 1,
    kTfLiteInt32 = 2,
    kTfLiteUInt8 = 3,
    kTfLiteInt64 = 4,
    kTfLiteInt16 = 7,
    kTfLiteInt8 = 9,
} TfLiteType;

/// Per-tensor affine quantisation: real = scale * (quantised - zero_point).
typedef struct TfLiteQuantizationParams {
    float scale;
    int32_t zero_point;
} TfLiteQuantizationParams;

/// Error reporter installed on models and interpreter options (printf-style message):
/// `void (*)(void *user_data, const char *format, va_list args)`. The entry points below take it
/// as `const void *` because a `va_list` inside a function-pointer type crashes Swift 6.3 when
/// the type is deserialised from a module (seen with `@testable import`); on the supported
/// platforms a function pointer passes exactly like a data pointer.
typedef const void *ctflite_error_reporter_ref;

// ---- Entry points, as function-pointer types for dlsym ----
typedef const char *(*ctflite_version_fn)(void);

typedef TfLiteModel *(*ctflite_model_create_from_file_fn)(const char *model_path);
typedef TfLiteModel *(*ctflite_model_create_from_file_with_error_reporter_fn)(
    const char *model_path, ctflite_error_reporter_ref reporter, void *user_data);
typedef void (*ctflite_model_delete_fn)(TfLiteModel *model);

typedef TfLiteInterpreterOptions *(*ctflite_interpreter_options_create_fn)(void);
typedef void (*ctflite_interpreter_options_delete_fn)(TfLiteInterpreterOptions *options);
typedef void (*ctflite_interpreter_options_set_num_threads_fn)(
    TfLiteInterpreterOptions *options, int32_t num_threads);
typedef void (*ctflite_interpreter_options_set_error_reporter_fn)(
    TfLiteInterpreterOptions *options, ctflite_error_reporter_ref reporter, void *user_data);

typedef TfLiteInterpreter *(*ctflite_interpreter_create_fn)(
    const TfLiteModel *model, const TfLiteInterpreterOptions *optional_options);
typedef void (*ctflite_interpreter_delete_fn)(TfLiteInterpreter *interpreter);
typedef TfLiteStatus (*ctflite_interpreter_allocate_tensors_fn)(TfLiteInterpreter *interpreter);
typedef TfLiteStatus (*ctflite_interpreter_invoke_fn)(TfLiteInterpreter *interpreter);
typedef int32_t (*ctflite_interpreter_get_tensor_count_fn)(const TfLiteInterpreter *interpreter);
typedef TfLiteTensor *(*ctflite_interpreter_get_input_tensor_fn)(
    const TfLiteInterpreter *interpreter, int32_t input_index);
typedef const TfLiteTensor *(*ctflite_interpreter_get_output_tensor_fn)(
    const TfLiteInterpreter *interpreter, int32_t output_index);

typedef TfLiteType (*ctflite_tensor_type_fn)(const TfLiteTensor *tensor);
typedef int32_t (*ctflite_tensor_num_dims_fn)(const TfLiteTensor *tensor);
typedef int32_t (*ctflite_tensor_dim_fn)(const TfLiteTensor *tensor, int32_t dim_index);
typedef size_t (*ctflite_tensor_byte_size_fn)(const TfLiteTensor *tensor);
typedef TfLiteQuantizationParams (*ctflite_tensor_quantization_params_fn)(
    const TfLiteTensor *tensor);
typedef TfLiteStatus (*ctflite_tensor_copy_from_buffer_fn)(
    TfLiteTensor *tensor, const void *input_data, size_t input_data_size);
typedef TfLiteStatus (*ctflite_tensor_copy_to_buffer_fn)(
    const TfLiteTensor *output_tensor, void *output_data, size_t output_data_size);

// ---- Helpers implemented in this target (no TF Lite code) ----

/// Collects reporter messages for one model/interpreter: each report is formatted and
/// appended (separated by "; ") until the buffer is full. Clear `length` before a call.
typedef struct ctflite_error_sink {
    size_t length;
    char message[1024];
} ctflite_error_sink;

/// An error reporter whose user_data is a ctflite_error_sink *.
void ctflite_error_sink_report(void *user_data, const char *format, va_list args);

/// ctflite_error_sink_report as a ctflite_error_reporter_ref for the entry points above.
ctflite_error_reporter_ref ctflite_error_sink_reporter(void);

/// Calls `fn(tensor)` from C: a reference for the by-value struct return through a function
/// pointer, which Swift also handles itself (the tests compare both paths).
TfLiteQuantizationParams ctflite_call_quantization_params(
    ctflite_tensor_quantization_params_fn fn, const TfLiteTensor *tensor);

#ifdef __cplusplus
}
#endif
