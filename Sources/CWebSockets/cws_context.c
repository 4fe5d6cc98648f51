// lws_create_context() for every cws_client/cws_server, serialised.
//
// libwebsockets 4.1 touches process-wide state while it builds a context (the log level, the
// SIGPIPE disposition and, for TLS contexts, OpenSSL's ex-data index it keeps in a global), so
// contexts are created one at a time. lws logs straight to stderr; it is silenced here because
// everything that matters reaches the owner as an event. Set CLAWTALK_LWS_LOG_LEVEL to an lws
// LLL_ bitmask (e.g. 7 for errors, warnings and notices) to see its logs while debugging.
#include "cws_internal.h"

#include <stdlib.h>

static pthread_mutex_t context_mu = PTHREAD_MUTEX_INITIALIZER;
static int log_level_set;

struct lws_context *cws_create_context(const struct lws_context_creation_info *info) {
    pthread_mutex_lock(&context_mu);
    if (!log_level_set) {
        const char *level = getenv("CLAWTALK_LWS_LOG_LEVEL");
        lws_set_log_level(level ? atoi(level) : 0, NULL);
        log_level_set = 1;
    }
    struct lws_context *ctx = lws_create_context(info);
    pthread_mutex_unlock(&context_mu);
    return ctx;
}
