// extern "C" shim over webrtc::AudioProcessing (webrtc-audio-processing 0.3).
#include "CAudioProcessing.h"

#include <new>

#include <webrtc/common.h>
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>

using webrtc::AudioFrame;
using webrtc::AudioProcessing;

struct capm_handle {
    AudioProcessing *apm = nullptr;
    AudioFrame frame;
    int sample_rate = 0;
    size_t samples = 0;
    bool vad = false;
};

namespace {

bool valid_rate(int rate) {
    return rate == 8000 || rate == 16000 || rate == 32000 || rate == 48000;
}

// Applies the component settings; returns the first APM error or 0.
int configure(AudioProcessing *apm, const capm_config &c) {
    int rc;
#define CAPM_TRY(expr) \
    do { if ((rc = (expr)) != AudioProcessing::kNoError) return rc; } while (0)

    if (c.echo_cancellation == 1) {
        webrtc::EchoCancellation::SuppressionLevel level =
            c.aec_suppression <= 0 ? webrtc::EchoCancellation::kLowSuppression
            : c.aec_suppression == 1 ? webrtc::EchoCancellation::kModerateSuppression
                                     : webrtc::EchoCancellation::kHighSuppression;
        CAPM_TRY(apm->echo_cancellation()->set_suppression_level(level));
        CAPM_TRY(apm->echo_cancellation()->enable_drift_compensation(false));
        CAPM_TRY(apm->echo_cancellation()->Enable(true));
    } else if (c.echo_cancellation == 2) {
        CAPM_TRY(apm->echo_control_mobile()->set_routing_mode(webrtc::EchoControlMobile::kSpeakerphone));
        CAPM_TRY(apm->echo_control_mobile()->Enable(true));
    } else {
        CAPM_TRY(apm->echo_cancellation()->Enable(false));
        CAPM_TRY(apm->echo_control_mobile()->Enable(false));
    }

    if (c.noise_suppression > 0) {
        webrtc::NoiseSuppression::Level level =
            c.noise_suppression == 1 ? webrtc::NoiseSuppression::kLow
            : c.noise_suppression == 2 ? webrtc::NoiseSuppression::kModerate
            : c.noise_suppression == 3 ? webrtc::NoiseSuppression::kHigh
                                       : webrtc::NoiseSuppression::kVeryHigh;
        CAPM_TRY(apm->noise_suppression()->set_level(level));
        CAPM_TRY(apm->noise_suppression()->Enable(true));
    } else {
        CAPM_TRY(apm->noise_suppression()->Enable(false));
    }

    if (c.gain_control > 0) {
        CAPM_TRY(apm->gain_control()->set_mode(c.gain_control == 1 ? webrtc::GainControl::kAdaptiveDigital
                                                                   : webrtc::GainControl::kFixedDigital));
        CAPM_TRY(apm->gain_control()->set_target_level_dbfs(c.target_level_dbfs));
        CAPM_TRY(apm->gain_control()->Enable(true));
    } else {
        CAPM_TRY(apm->gain_control()->Enable(false));
    }

    CAPM_TRY(apm->high_pass_filter()->Enable(c.high_pass_filter != 0));

    if (c.voice_detection) {
        webrtc::VoiceDetection::Likelihood likelihood =
            c.vad_likelihood <= 0 ? webrtc::VoiceDetection::kVeryLowLikelihood
            : c.vad_likelihood == 1 ? webrtc::VoiceDetection::kLowLikelihood
            : c.vad_likelihood == 2 ? webrtc::VoiceDetection::kModerateLikelihood
                                    : webrtc::VoiceDetection::kHighLikelihood;
        CAPM_TRY(apm->voice_detection()->set_likelihood(likelihood));
        CAPM_TRY(apm->voice_detection()->Enable(true));
    } else {
        CAPM_TRY(apm->voice_detection()->Enable(false));
    }
#undef CAPM_TRY
    return AudioProcessing::kNoError;
}

void load(capm_handle *h, const int16_t *data) {
    h->frame.UpdateFrame(0, 0, data, h->samples, h->sample_rate, AudioFrame::kNormalSpeech,
                         AudioFrame::kVadUnknown, 1);
}

}  // namespace

extern "C" capm_handle *capm_create(const capm_config *cfg, int *error_out) {
    int dummy = 0;
    int &err = error_out ? *error_out : dummy;
    err = AudioProcessing::kNoError;
    if (cfg == nullptr) {
        err = AudioProcessing::kNullPointerError;
        return nullptr;
    }
    if (!valid_rate(cfg->sample_rate)) {
        err = AudioProcessing::kBadSampleRateError;
        return nullptr;
    }
    if (cfg->echo_cancellation < 0 || cfg->echo_cancellation > 2 || cfg->noise_suppression < 0 ||
        cfg->noise_suppression > 4 || cfg->gain_control < 0 || cfg->gain_control > 2 ||
        cfg->target_level_dbfs < 0 || cfg->target_level_dbfs > 31 || cfg->aec_suppression < 0 ||
        cfg->aec_suppression > 2 || cfg->vad_likelihood < 0 || cfg->vad_likelihood > 3) {
        err = AudioProcessing::kBadParameterError;
        return nullptr;
    }
    capm_handle *h = nullptr;
    try {
        webrtc::Config config;
        config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(cfg->extended_filter != 0));
        config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(cfg->delay_agnostic != 0));
        // ExperimentalAgc defaults to enabled and would drive an analog level we do not have.
        config.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
        h = new capm_handle();
        h->apm = AudioProcessing::Create(config);
        if (h->apm == nullptr) {
            delete h;
            err = AudioProcessing::kCreationFailedError;
            return nullptr;
        }
        h->sample_rate = cfg->sample_rate;
        h->samples = static_cast<size_t>(cfg->sample_rate / 100);
        h->vad = cfg->voice_detection != 0;
        int rc = h->apm->Initialize(cfg->sample_rate, cfg->sample_rate, cfg->sample_rate,
                                    AudioProcessing::kMono, AudioProcessing::kMono,
                                    AudioProcessing::kMono);
        if (rc == AudioProcessing::kNoError) rc = configure(h->apm, *cfg);
        if (rc != AudioProcessing::kNoError) {
            delete h->apm;
            delete h;
            err = rc;
            return nullptr;
        }
        return h;
    } catch (...) {
        if (h) {
            delete h->apm;
            delete h;
        }
        err = AudioProcessing::kUnspecifiedError;
        return nullptr;
    }
}

extern "C" void capm_destroy(capm_handle *h) {
    if (h == nullptr) return;
    delete h->apm;
    delete h;
}

extern "C" int capm_frame_samples(const capm_handle *h) {
    return h ? static_cast<int>(h->samples) : 0;
}

extern "C" int capm_analyze_render(capm_handle *h, const int16_t *frame) {
    if (h == nullptr || frame == nullptr) return AudioProcessing::kNullPointerError;
    try {
        load(h, frame);
        return h->apm->AnalyzeReverseStream(&h->frame);
    } catch (...) {
        return AudioProcessing::kUnspecifiedError;
    }
}

extern "C" int capm_process_capture(capm_handle *h, int16_t *frame_inout, int delay_ms, int *voice_out) {
    if (voice_out) *voice_out = 0;
    if (h == nullptr || frame_inout == nullptr) return AudioProcessing::kNullPointerError;
    try {
        load(h, frame_inout);
        // Out-of-range delays are clamped and reported as a warning, which is not a failure.
        int rc = h->apm->set_stream_delay_ms(delay_ms);
        if (rc != AudioProcessing::kNoError && rc != AudioProcessing::kBadStreamParameterWarning) return rc;
        rc = h->apm->ProcessStream(&h->frame);
        if (rc != AudioProcessing::kNoError && rc != AudioProcessing::kBadStreamParameterWarning) return rc;
        const int16_t *out = h->frame.data_;
        for (size_t i = 0; i < h->samples; ++i) frame_inout[i] = out[i];
        if (voice_out && h->vad) *voice_out = h->apm->voice_detection()->stream_has_voice() ? 1 : 0;
        return AudioProcessing::kNoError;
    } catch (...) {
        return AudioProcessing::kUnspecifiedError;
    }
}

extern "C" const char *capm_error_string(int code) {
    switch (code) {
        case AudioProcessing::kNoError: return "no error";
        case AudioProcessing::kUnspecifiedError: return "unspecified error";
        case AudioProcessing::kCreationFailedError: return "creation failed";
        case AudioProcessing::kUnsupportedComponentError: return "unsupported component";
        case AudioProcessing::kUnsupportedFunctionError: return "unsupported function";
        case AudioProcessing::kNullPointerError: return "null pointer";
        case AudioProcessing::kBadParameterError: return "bad parameter";
        case AudioProcessing::kBadSampleRateError: return "bad sample rate";
        case AudioProcessing::kBadDataLengthError: return "bad data length";
        case AudioProcessing::kBadNumberChannelsError: return "bad number of channels";
        case AudioProcessing::kFileError: return "file error";
        case AudioProcessing::kStreamParameterNotSetError: return "stream parameter not set";
        case AudioProcessing::kNotEnabledError: return "component not enabled";
        case AudioProcessing::kBadStreamParameterWarning: return "bad stream parameter (warning)";
        default: return "unknown audio processing error";
    }
}
