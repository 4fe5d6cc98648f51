// The client's one write path. Every byte the client sends (upgrade request, frames, and over
// wss every TLS record, handshake and alert included) joins one ordered output buffer; the
// socket gets as much as it takes, and what it does not take stays queued until the next
// writable callback. Nothing else writes to the socket, so a short send or EAGAIN can never
// reorder or lose bytes, and the writable callback produces the next frame only once the
// buffer is empty (at most one fragment waits in memory). Service thread only.
#include "cws_client_internal.h"

#include <errno.h>
#include <limits.h>
#include <openssl/err.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

int cws_out_append(cws_client *c, const unsigned char *data, size_t len) {
    if (!len) return 0;
    if (c->out_sent == c->out_len) {
        c->out_sent = c->out_len = 0;
    } else if (c->out_sent && c->out_len + len > c->out_cap) {
        // Make room at the front before growing.
        memmove(c->out, c->out + c->out_sent, c->out_len - c->out_sent);
        c->out_len -= c->out_sent;
        c->out_sent = 0;
    }
    if (c->out_len + len > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 16 * 1024;
        while (cap < c->out_len + len) {
            if (cap > SIZE_MAX / 2) return -1;
            cap *= 2;
        }
        unsigned char *p = realloc(c->out, cap);
        if (!p) return -1;
        c->out = p;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, data, len);
    c->out_len += len;
    return 0;
}

int cws_out_pending(const cws_client *c) { return c->out_sent < c->out_len; }

int cws_out_flush(cws_client *c, struct lws *wsi) {
    int fd = lws_get_socket_fd(wsi);
    if (fd < 0) return -1;
    while (c->out_sent < c->out_len) {
        size_t want = c->out_len - c->out_sent;
        ssize_t n = send(fd, c->out + c->out_sent, want, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return -1;
        if (n > 0) c->out_sent += (size_t)n;
        if (n < 0 || (size_t)n < want) {
            // The socket is full: keep the rest and resume when it is writable again.
            atomic_fetch_add(&c->send_stalls, 1);
            lws_callback_on_writable(wsi);
            return 0;
        }
    }
    c->out_sent = c->out_len = 0;
    return 0;
}

/// Plaintext into TLS records. SSL_write may take less than offered (partial-write mode) or ask
/// to be retried (WANT_WRITE); either way the rest is offered again until all of it is in.
static int tls_write(cws_client *c, const unsigned char *data, size_t len) {
    size_t done = 0;
    while (done < len) {
        size_t chunk = len - done > INT_MAX ? INT_MAX : len - done;
        ERR_clear_error();
        int n = SSL_write(c->ssl, data + done, (int)chunk);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        int e = SSL_get_error(c->ssl, n);
        if (e != SSL_ERROR_WANT_WRITE) return -1;
        // The write BIO is full: move its records into the output buffer and retry.
        size_t before = c->out_len - c->out_sent;
        if (cws_tls_drain(c) != 0) return -1;
        if (c->out_len - c->out_sent == before) return -1;  // nothing moved: no progress possible
    }
    return cws_tls_drain(c);
}

int cws_transport_write(cws_client *c, struct lws *wsi, const unsigned char *data, size_t len) {
    int rc = c->ssl ? tls_write(c, data, len) : cws_out_append(c, data, len);
    if (rc != 0) return -1;
    return cws_out_flush(c, wsi);
}

void cws_out_release(cws_client *c) {
    free(c->out);
    c->out = NULL;
    c->out_len = c->out_sent = c->out_cap = 0;
}
