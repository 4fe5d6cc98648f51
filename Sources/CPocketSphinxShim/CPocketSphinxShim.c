#include "CPocketSphinxShim.h"

#include <malloc.h>
#include <stdio.h>
#include <sphinxbase/err.h>

enum { CPS_MAX_ARGS = 24 };

static void cps_push(const char **argv, int *argc, const char *key, const char *value) {
    if (*argc + 2 > CPS_MAX_ARGS) return;
    argv[(*argc)++] = key;
    argv[(*argc)++] = value;
}

ps_decoder_t *cps_decoder_new(const char *hmm, const char *dict, const char *lm_or_null,
                              const char *kws_or_null, const char *keyphrase_or_null,
                              double kws_threshold, int dither, const char *logfn_or_null) {
    const char *argv[CPS_MAX_ARGS];
    int argc = 0;
    char threshold[64];

    // cmd_ln_parse_r prints the whole configuration before -logfn takes effect, so the log
    // destination is chosen first: NULL disables sphinxbase logging process-wide.
    if (logfn_or_null == NULL) {
        err_set_logfp(NULL);
    } else {
        err_set_logfile(logfn_or_null);
    }

    cps_push(argv, &argc, "-hmm", hmm);
    cps_push(argv, &argc, "-dict", dict);
    if (lm_or_null != NULL) cps_push(argv, &argc, "-lm", lm_or_null);
    if (kws_or_null != NULL) cps_push(argv, &argc, "-kws", kws_or_null);
    if (keyphrase_or_null != NULL) {
        cps_push(argv, &argc, "-keyphrase", keyphrase_or_null);
        if (kws_threshold > 0) {
            snprintf(threshold, sizeof threshold, "%g", kws_threshold);
            cps_push(argv, &argc, "-kws_threshold", threshold);
        }
    }
    cps_push(argv, &argc, "-dither", dither ? "yes" : "no");
    // A negative -seed (the default) seeds the dither noise from the clock; a fixed seed keeps
    // decoding reproducible.
    if (dither) cps_push(argv, &argc, "-seed", "1");
    if (logfn_or_null != NULL) cps_push(argv, &argc, "-logfn", logfn_or_null);

    // cmd_ln_parse_r takes char ** but does not modify the strings.
    cmd_ln_t *config = cmd_ln_parse_r(NULL, ps_args(), argc, (char **)argv, TRUE);
    if (config == NULL) return NULL;
    ps_decoder_t *ps = ps_init(config);
    cmd_ln_free_r(config);  // ps_init retains its own reference
    return ps;
}

void cps_decoder_free(ps_decoder_t *ps) {
    if (ps == NULL) return;
    ps_free(ps);
    // The dictionary and model are tens of thousands of small allocations: without a trim their
    // ~30 MB stay in the process after the free.
    malloc_trim(0);
}
