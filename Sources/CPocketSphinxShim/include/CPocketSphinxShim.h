// Fixed-argument decoder construction for PocketSphinx 5prealpha (Debian's 0.8+5prealpha).
//
// cmd_ln_init() is C-variadic, which Swift cannot call, so this shim builds the argv array
// itself, parses it with cmd_ln_parse_r() against ps_args() and hands the result to ps_init().
// Everything else in libpocketsphinx imports into Swift directly.
#pragma once

#include <pocketsphinx.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Creates a decoder, or returns NULL (the reason goes to PocketSphinx's log).
///
/// - hmm: acoustic model directory (`-hmm`).
/// - dict: pronunciation dictionary (`-dict`).
/// - lm_or_null: binary/ARPA n-gram model (`-lm`), or NULL.
/// - kws_or_null: keyphrase file, one `phrase /threshold/` per line (`-kws`), or NULL.
/// - keyphrase_or_null: a single keyphrase (`-keyphrase`), used with `kws_threshold`, or NULL.
/// - kws_threshold: threshold for `keyphrase_or_null` (`-kws_threshold`); ignored when <= 0.
/// - dither: non-zero adds 1/2-bit noise (`-dither yes`), needed when input has digital silence;
///   the noise uses a fixed `-seed`, so results are reproducible.
/// - logfn_or_null: log file (`-logfn`); NULL silences PocketSphinx entirely, like `-logfn
///   /dev/null` but without formatting the messages at all (its log is
///   process-global: this also affects other decoders in the process).
///
/// With none of lm/kws/keyphrase the decoder has no active search; add one with ps_set_kws(),
/// ps_set_lm() etc. and activate it with ps_set_search().
ps_decoder_t *cps_decoder_new(const char *hmm, const char *dict, const char *lm_or_null,
                              const char *kws_or_null, const char *keyphrase_or_null,
                              double kws_threshold, int dither, const char *logfn_or_null);

/// Releases a decoder made by cps_decoder_new (NULL is ignored) and hands the freed heap pages
/// back to the system (malloc_trim), so a released decoder no longer counts in the RSS.
void cps_decoder_free(ps_decoder_t *ps);

#ifdef __cplusplus
}
#endif
