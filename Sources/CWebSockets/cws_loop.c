// The service loop and the cross-thread command queue shared by client and server, plus small
// helpers (error text, certificate fingerprints).
#include "cws_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

// ---- errors -----------------------------------------------------------------------------------

void cws_set_error(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

// ---- loop -------------------------------------------------------------------------------------

void cws_loop_init(cws_loop *loop, cws_event_fn fn, void *user, size_t max_message_bytes) {
    memset(loop, 0, sizeof(*loop));
    pthread_mutex_init(&loop->mu, NULL);
    atomic_init(&loop->muted, 0);
    loop->fn = fn;
    loop->user = user;
    loop->max_message_bytes = max_message_bytes;
}

int cws_loop_post(cws_loop *loop, cws_cmd *cmd) {
    pthread_mutex_lock(&loop->mu);
    if (loop->stop) {
        pthread_mutex_unlock(&loop->mu);
        cws_cmd_free(cmd);
        return CWS_ERR_NOT_OPEN;
    }
    if (loop->q_tail)
        loop->q_tail->next = cmd;
    else
        loop->q_head = cmd;
    loop->q_tail = cmd;
    // Before the context exists the thread has not entered lws_service yet; it drains the
    // queue on its first EVENT_WAIT_CANCELLED, which publishing the context triggers.
    if (loop->ctx) lws_cancel_service(loop->ctx);
    pthread_mutex_unlock(&loop->mu);
    return CWS_OK;
}

cws_cmd *cws_loop_take(cws_loop *loop) {
    pthread_mutex_lock(&loop->mu);
    cws_cmd *head = loop->q_head;
    loop->q_head = loop->q_tail = NULL;
    pthread_mutex_unlock(&loop->mu);
    return head;
}

int cws_loop_should_stop(cws_loop *loop) {
    pthread_mutex_lock(&loop->mu);
    int stop = loop->stop;
    pthread_mutex_unlock(&loop->mu);
    return stop;
}

int cws_loop_publish_context(cws_loop *loop, struct lws_context *ctx) {
    pthread_mutex_lock(&loop->mu);
    int stop = loop->stop;
    if (!stop) {
        loop->ctx = ctx;
        if (loop->q_head) lws_cancel_service(ctx);
    }
    pthread_mutex_unlock(&loop->mu);
    return stop ? -1 : 0;
}

void cws_loop_retract_context(cws_loop *loop) {
    pthread_mutex_lock(&loop->mu);
    loop->ctx = NULL;
    pthread_mutex_unlock(&loop->mu);
}

void cws_loop_stop_and_join(cws_loop *loop) {
    atomic_store(&loop->muted, 1);
    pthread_mutex_lock(&loop->mu);
    loop->stop = 1;
    if (loop->ctx) lws_cancel_service(loop->ctx);
    pthread_mutex_unlock(&loop->mu);
    if (!loop->thread_started) return;
    if (pthread_equal(pthread_self(), loop->thread)) {
        // Joining ourselves would deadlock and freeing would pull the loop out from under us.
        fprintf(stderr, "CWebSockets: destroy called from its own event callback\n");
        abort();
    }
    pthread_join(loop->thread, NULL);
    loop->thread_started = 0;
}

void cws_loop_run(cws_loop *loop, struct lws_context *ctx) {
    while (!cws_loop_should_stop(loop)) {
        if (lws_service(ctx, 0) < 0) break;
    }
}

void cws_loop_free_queue(cws_loop *loop) {
    cws_cmd *cmd = cws_loop_take(loop);
    while (cmd) {
        cws_cmd *next = cmd->next;
        cws_cmd_free(cmd);
        cmd = next;
    }
}

void cws_emit(cws_loop *loop, const cws_event *ev) {
    if (atomic_load(&loop->muted) || !loop->fn) return;
    loop->fn(loop->user, ev);
}

// ---- commands ---------------------------------------------------------------------------------

cws_msg *cws_msg_new(const void *data, size_t len, int flags) {
    if (len > SIZE_MAX - sizeof(cws_msg) - LWS_PRE) return NULL;
    cws_msg *msg = malloc(sizeof(cws_msg) + LWS_PRE + len);
    if (!msg) return NULL;
    msg->next = NULL;
    msg->len = len;
    msg->sent = 0;
    msg->flags = flags;
    if (len) memcpy(msg->buf + LWS_PRE, data, len);
    return msg;
}

cws_cmd *cws_cmd_new_send(uint64_t conn_id, const void *data, size_t len, int flags) {
    cws_cmd *cmd = calloc(1, sizeof(*cmd));
    if (!cmd) return NULL;
    cmd->msg = cws_msg_new(data, len, flags);
    if (!cmd->msg) {
        free(cmd);
        return NULL;
    }
    cmd->type = CWS_CMD_SEND;
    cmd->conn_id = conn_id;
    return cmd;
}

cws_cmd *cws_cmd_new_close(uint64_t conn_id, int code, const char *reason) {
    cws_cmd *cmd = calloc(1, sizeof(*cmd));
    if (!cmd) return NULL;
    cmd->type = CWS_CMD_CLOSE;
    cmd->conn_id = conn_id;
    cmd->code = code;
    if (reason) snprintf(cmd->reason, sizeof(cmd->reason), "%s", reason);
    return cmd;
}

void cws_cmd_free(cws_cmd *cmd) {
    if (!cmd) return;
    free(cmd->msg);
    free(cmd);
}

// ---- TLS helpers ------------------------------------------------------------------------------

void cws_x509_sha256_hex(X509 *cert, char out[CWS_FINGERPRINT_HEX]) {
    static const char digits[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    out[0] = 0;
    if (!cert || X509_digest(cert, EVP_sha256(), md, &n) != 1 || n != 32) return;
    for (unsigned int i = 0; i < n; i++) {
        out[2 * i] = digits[md[i] >> 4];
        out[2 * i + 1] = digits[md[i] & 15];
    }
    out[64] = 0;
}
