// One blocking HTTP(S) exchange on a fresh TCP connection: used once per `clawtalk pair
// <join URL>` to redeem a join code. No lws here: a plain socket with timeouts and, for
// https, OpenSSL on the socket. Trust rules are the WebSocket client's (cws_client_tls.c):
// without a pin, the system store (or ca_file) and the host name decide; with a pin, only
// SHA-256(DER leaf) decides.
#include "cws_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

struct cws_https {
    int fd;
    SSL_CTX *ctx;
    SSL *ssl;
    int has_pin;
    int pin_mismatch;
    char pin[CWS_FINGERPRINT_HEX];
    char observed[CWS_FINGERPRINT_HEX];
    char verify_error[128];
};

static int https_verify(int preverify_ok, X509_STORE_CTX *store) {
    SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
    cws_https *h = ssl ? SSL_get_app_data(ssl) : NULL;
    if (!h) return 0;
    char fingerprint[CWS_FINGERPRINT_HEX];
    cws_x509_sha256_hex(X509_STORE_CTX_get0_cert(store), fingerprint);  // the leaf
    if (fingerprint[0]) memcpy(h->observed, fingerprint, sizeof(fingerprint));
    if (!h->has_pin) {
        if (!preverify_ok && !h->verify_error[0])
            snprintf(h->verify_error, sizeof(h->verify_error), "%s",
                     X509_verify_cert_error_string(X509_STORE_CTX_get_error(store)));
        return preverify_ok;
    }
    if (fingerprint[0] && strcmp(fingerprint, h->pin) == 0) {
        X509_STORE_CTX_set_error(store, X509_V_OK);
        return 1;
    }
    h->pin_mismatch = 1;
    return 0;
}

static int is_ip_literal(const char *host) {
    unsigned char buf[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

/// Connects one address within timeout_ms; the socket stays blocking with I/O timeouts.
static int connect_addr(const struct addrinfo *ai, int timeout_ms) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) return -1;
    int flags = fcntl(fd, F_GETFL, 0);
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        rc = poll(&pfd, 1, timeout_ms);
        if (rc == 1) {
            int soerr = 0;
            socklen_t len = sizeof(soerr);
            rc = getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 && soerr == 0 ? 0 : -1;
            if (soerr) errno = soerr;
        } else {
            if (rc == 0) errno = ETIMEDOUT;
            rc = -1;
        }
    }
    if (rc != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    fcntl(fd, F_SETFL, flags);
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    return fd;
}

static void fail(cws_https *h, cws_error_kind *kind, cws_error_kind k, char *err, size_t errlen,
                const char *message) {
    if (kind) *kind = k;
    cws_set_error(err, errlen, "%s", message);
    cws_https_close(h);
}

cws_https *cws_https_connect(const cws_https_config *cfg, cws_error_kind *kind, char *err,
                             size_t errlen) {
    if (kind) *kind = CWS_ERROR_CONNECT;
    if (!cfg || !cfg->host || cfg->port < 1 || cfg->port > 65535 || cfg->timeout_ms < 1) {
        cws_set_error(err, errlen, "invalid HTTP request configuration");
        return NULL;
    }
    if (cfg->pin_sha256_hex && strlen(cfg->pin_sha256_hex) != CWS_FINGERPRINT_HEX - 1) {
        cws_set_error(err, errlen, "invalid pin");
        return NULL;
    }
    // SSL_write() uses write(2): a peer that went away must not kill the process.
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);

    cws_https *h = calloc(1, sizeof(*h));
    if (!h) {
        cws_set_error(err, errlen, "out of memory");
        return NULL;
    }
    h->fd = -1;
    char port[8];
    snprintf(port, sizeof(port), "%d", cfg->port);
    struct addrinfo hints = {0}, *list = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(cfg->host, port, &hints, &list);
    if (gai != 0) {
        char message[256];
        snprintf(message, sizeof(message), "cannot resolve the host: %s", gai_strerror(gai));
        fail(h, kind, CWS_ERROR_CONNECT, err, errlen, message);
        return NULL;
    }
    int last_errno = 0;
    for (struct addrinfo *ai = list; ai && h->fd < 0; ai = ai->ai_next) {
        h->fd = connect_addr(ai, cfg->timeout_ms);
        if (h->fd < 0) last_errno = errno;
    }
    freeaddrinfo(list);
    if (h->fd < 0) {
        char message[256];
        snprintf(message, sizeof(message), "cannot connect: %s", strerror(last_errno));
        fail(h, kind, CWS_ERROR_CONNECT, err, errlen, message);
        return NULL;
    }
    if (!cfg->use_tls) return h;

    ERR_clear_error();
    h->has_pin = cfg->pin_sha256_hex != NULL;
    if (h->has_pin) memcpy(h->pin, cfg->pin_sha256_hex, CWS_FINGERPRINT_HEX);
    h->ctx = SSL_CTX_new(TLS_client_method());
    if (!h->ctx) goto tls_setup_failed;
    SSL_CTX_set_min_proto_version(h->ctx, TLS1_2_VERSION);
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
    SSL_CTX_set_options(h->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
#endif
    if (!h->has_pin) {
        int loaded = cfg->ca_file ? SSL_CTX_load_verify_locations(h->ctx, cfg->ca_file, NULL)
                                  : SSL_CTX_set_default_verify_paths(h->ctx);
        if (loaded != 1) goto tls_setup_failed;
    }
    SSL_CTX_set_verify(h->ctx, SSL_VERIFY_PEER, https_verify);
    h->ssl = SSL_new(h->ctx);
    if (!h->ssl) goto tls_setup_failed;
    SSL_set_app_data(h->ssl, h);
    int literal = is_ip_literal(cfg->host);
    if (!literal) SSL_set_tlsext_host_name(h->ssl, cfg->host);
    if (!h->has_pin) {
        X509_VERIFY_PARAM *param = SSL_get0_param(h->ssl);
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        int ok = literal ? X509_VERIFY_PARAM_set1_ip_asc(param, cfg->host)
                         : X509_VERIFY_PARAM_set1_host(param, cfg->host, 0);
        if (ok != 1) goto tls_setup_failed;
    }
    if (SSL_set_fd(h->ssl, h->fd) != 1) goto tls_setup_failed;
    if (SSL_connect(h->ssl) != 1) {
        char message[256];
        if (h->pin_mismatch) {
            snprintf(message, sizeof(message), "certificate sha256 %s is not the pinned one",
                     h->observed[0] ? h->observed : "(unknown)");
            fail(h, kind, CWS_ERROR_PIN_MISMATCH, err, errlen, message);
        } else if (h->verify_error[0]) {
            snprintf(message, sizeof(message), "%s", h->verify_error);
            fail(h, kind, CWS_ERROR_TLS_UNTRUSTED, err, errlen, message);
        } else {
            unsigned long e = ERR_get_error();
            char why[200] = "no TLS answer";
            if (e) ERR_error_string_n(e, why, sizeof(why));
            snprintf(message, sizeof(message), "TLS handshake failed: %s", why);
            fail(h, kind, CWS_ERROR_CONNECT, err, errlen, message);
        }
        ERR_clear_error();
        return NULL;
    }
    return h;
tls_setup_failed:
    fail(h, kind, CWS_ERROR_CONNECT, err, errlen, "could not set up TLS");
    ERR_clear_error();
    return NULL;
}

long cws_https_write(cws_https *h, const void *data, size_t len) {
    if (!h || (!data && len)) return -1;
    size_t done = 0;
    while (done < len) {
        long n;
        if (h->ssl) {
            // Without partial-write mode SSL_write takes all it is offered or fails; offer at
            // most INT_MAX at a time (its length is an int).
            size_t chunk = len - done > INT_MAX ? INT_MAX : len - done;
            ERR_clear_error();
            n = SSL_write(h->ssl, (const char *)data + done, (int)chunk);
        } else {
            n = send(h->fd, (const char *)data + done, len - done, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR) continue;
        }
        if (n <= 0) return -1;
        done += (size_t)n;
    }
    return (long)done;
}

long cws_https_read(cws_https *h, void *buf, size_t cap) {
    if (!h || !buf || !cap) return -1;
    if (!h->ssl) {
        for (;;) {
            long n = recv(h->fd, buf, cap, 0);
            if (n < 0 && errno == EINTR) continue;
            return n;
        }
    }
    ERR_clear_error();
    int n = SSL_read(h->ssl, buf, cap > 1 << 30 ? 1 << 30 : (int)cap);
    if (n > 0) return n;
    int e = SSL_get_error(h->ssl, n);
    ERR_clear_error();
    // A peer that closes without close_notify ends the body too (the caller checks framing).
    return e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && errno == 0) ? 0 : -1;
}

const char *cws_https_cert_sha256(const cws_https *h) { return h ? h->observed : ""; }

void cws_https_close(cws_https *h) {
    if (!h) return;
    if (h->ssl) SSL_free(h->ssl);
    if (h->ctx) SSL_CTX_free(h->ctx);
    if (h->fd >= 0) close(h->fd);
    free(h);
}
