// Fixed-argument wrappers around libopus's C-variadic opus_encoder_ctl / opus_decoder_ctl,
// which Swift cannot call. Each returns the libopus result code (OPUS_OK = 0 on success).
#pragma once

#include <stdint.h>
#include <opus.h>

#ifdef __cplusplus
extern "C" {
#endif

/// OPUS_SET_BITRATE: bits per second (500...512000), or OPUS_AUTO / OPUS_BITRATE_MAX.
int copus_encoder_set_bitrate(OpusEncoder *encoder, int32_t bitsPerSecond);
/// OPUS_SET_COMPLEXITY: 0 (fastest) ... 10 (best).
int copus_encoder_set_complexity(OpusEncoder *encoder, int32_t complexity);
/// OPUS_SET_DTX: 1 = discontinuous transmission on, 0 = off.
int copus_encoder_set_dtx(OpusEncoder *encoder, int32_t enabled);
/// OPUS_SET_INBAND_FEC: 1 = in-band forward error correction on, 0 = off.
int copus_encoder_set_inband_fec(OpusEncoder *encoder, int32_t enabled);
/// OPUS_SET_PACKET_LOSS_PERC: expected packet loss in percent (0...100).
int copus_encoder_set_packet_loss_perc(OpusEncoder *encoder, int32_t percent);
/// OPUS_GET_LOOKAHEAD: encoder delay in samples at the encoder's rate, written to *out.
int copus_encoder_get_lookahead(OpusEncoder *encoder, int32_t *out);
/// OPUS_RESET_STATE on an encoder.
int copus_encoder_reset(OpusEncoder *encoder);
/// OPUS_RESET_STATE on a decoder.
int copus_decoder_reset(OpusDecoder *decoder);

#ifdef __cplusplus
}
#endif
