#include "CTFLite.h"

#include <stdio.h>

void ctflite_error_sink_report(void *user_data, const char *format, va_list args) {
    ctflite_error_sink *sink = (ctflite_error_sink *)user_data;
    if (sink == NULL || format == NULL) return;
    size_t capacity = sizeof sink->message;
    if (sink->length >= capacity - 1) return;
    if (sink->length > 0 && sink->length + 2 < capacity - 1) {
        sink->message[sink->length++] = ';';
        sink->message[sink->length++] = ' ';
    }
    int written = vsnprintf(sink->message + sink->length, capacity - sink->length, format, args);
    if (written < 0) {
        sink->message[sink->length] = '\0';
        return;
    }
    sink->length += (size_t)written;
    if (sink->length > capacity - 1) sink->length = capacity - 1;
}

ctflite_error_reporter_ref ctflite_error_sink_reporter(void) {
    return (ctflite_error_reporter_ref)ctflite_error_sink_report;
}

TfLiteQuantizationParams ctflite_call_quantization_params(
    ctflite_tensor_quantization_params_fn fn, const TfLiteTensor *tensor) {
    return fn(tensor);
}
