#include <stddef.h>

#include "COpusControl.h"

int copus_encoder_set_bitrate(OpusEncoder *encoder, int32_t bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitsPerSecond));
}

int copus_encoder_set_complexity(OpusEncoder *encoder, int32_t complexity) {
    return opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
}

int copus_encoder_set_dtx(OpusEncoder *encoder, int32_t enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_DTX(enabled));
}

int copus_encoder_set_inband_fec(OpusEncoder *encoder, int32_t enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(enabled));
}

int copus_encoder_set_packet_loss_perc(OpusEncoder *encoder, int32_t percent) {
    return opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(percent));
}

int copus_encoder_get_lookahead(OpusEncoder *encoder, int32_t *out) {
    opus_int32 value = 0;
    int rc = opus_encoder_ctl(encoder, OPUS_GET_LOOKAHEAD(&value));
    if (out != NULL) {
        *out = (int32_t)value;
    }
    return rc;
}

int copus_encoder_reset(OpusEncoder *encoder) {
    return opus_encoder_ctl(encoder, OPUS_RESET_STATE);
}

int copus_decoder_reset(OpusDecoder *decoder) {
    return opus_decoder_ctl(decoder, OPUS_RESET_STATE);
}
