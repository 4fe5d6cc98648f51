#ifndef CAUDIOPROCESSING_H
#define CAUDIOPROCESSING_H
// extern "C" surface over WebRTC AudioProcessing (webrtc-audio-processing 0.3).
//
// The C++ API is pure-virtual, which Swift's C++ interop cannot call, so this shim owns one
// AudioProcessing instance plus one AudioFrame and exposes create / analyze / process / destroy.
// Rules of the library, restated: mono 16-bit frames of exactly 10 ms at the configured rate,
// render (far end) and capture (near end) at the same rate, one thread per handle.

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Opaque processor; create with capm_create, free with capm_destroy.
typedef struct capm_handle capm_handle;

/// Plain-int configuration; every field has a documented range, 0 is always "off" or the lowest.
typedef struct capm_config {
    int sample_rate;        ///< 8000, 16000, 32000 or 48000 Hz (render and capture alike).
    int echo_cancellation;  ///< 0 off, 1 AEC (EchoCancellation), 2 AECM (EchoControlMobile, <= 16 kHz).
    int aec_suppression;    ///< AEC only: 0 low, 1 moderate, 2 high.
    int extended_filter;    ///< AEC only: non-zero enables the extended (longer) filter.
    int delay_agnostic;     ///< AEC only: non-zero estimates the delay internally.
    int noise_suppression;  ///< 0 off, 1 low, 2 moderate, 3 high, 4 very high.
    int gain_control;       ///< 0 off, 1 adaptive digital, 2 fixed digital.
    int target_level_dbfs;  ///< AGC target peak level, 0...31 meaning 0...-31 dBFS.
    int high_pass_filter;   ///< non-zero enables the high-pass filter.
    int voice_detection;    ///< non-zero enables the WebRTC VAD.
    int vad_likelihood;     ///< 0 very low, 1 low, 2 moderate, 3 high.
} capm_config;

/// Creates and configures a processor. Returns NULL on failure and, when error_out is not NULL,
/// stores the APM error code (or -1 for an unspecified failure) there.
capm_handle *capm_create(const capm_config *cfg, int *error_out);

/// Frees a processor; NULL is ignored.
void capm_destroy(capm_handle *h);

/// Samples in one 10 ms mono frame at the configured rate.
int capm_frame_samples(const capm_handle *h);

/// Feeds one far-end frame (what the node plays, mono, at the processing rate, capm_frame_samples
/// samples). Returns 0 or an APM error code.
int capm_analyze_render(capm_handle *h, const int16_t *frame);

/// Processes one near-end (microphone) frame in place. delay_ms is the time between a far-end frame
/// being analysed and its echo reaching the capture (clamped by APM to 0...500). voice_out (may be
/// NULL) receives 1 if the VAD flagged voice, 0 otherwise or when the VAD is off. Returns 0 or an
/// APM error code.
int capm_process_capture(capm_handle *h, int16_t *frame_inout, int delay_ms, int *voice_out);

/// Static English text for an APM error code (never NULL).
const char *capm_error_string(int code);

#ifdef __cplusplus
}
#endif

#endif
