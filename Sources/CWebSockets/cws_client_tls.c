// TLS for the client: OpenSSL over memory BIOs on top of lws's RAW TCP connection.
//
// Ciphertext from the socket goes into the read BIO; everything OpenSSL produces is drained from
// the write BIO into the client's one ordered output buffer (cws_client_io.c), so handshake,
// alert and application records reach the socket in the order OpenSSL made them.
//
// Trust: without a pin, the system store (or the configured CA file) and the host name decide.
// With a pin, nothing but SHA-256(DER leaf) decides: the verify callback overrules every chain
// error when the fingerprint matches and fails the handshake when it does not.
#include "cws_client_internal.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TLS_READ_CHUNK (64 * 1024)

static int is_ip_literal(const char *host) {
    unsigned char buf[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

static void last_tls_error(char *out, size_t len, const char *fallback) {
    unsigned long e = ERR_get_error();
    if (e)
        ERR_error_string_n(e, out, len);
    else
        snprintf(out, len, "%s", fallback);
    ERR_clear_error();
}

/// Called by OpenSSL for each certificate of the chain (depth > 0 first, the leaf last).
static int verify_callback(int preverify_ok, X509_STORE_CTX *store) {
    SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
    cws_client *c = ssl ? SSL_get_app_data(ssl) : NULL;
    if (!c) return 0;
    X509 *leaf = X509_STORE_CTX_get0_cert(store);  // the certificate being verified: the leaf
    char fingerprint[CWS_FINGERPRINT_HEX];
    cws_x509_sha256_hex(leaf, fingerprint);
    if (fingerprint[0]) memcpy(c->observed, fingerprint, sizeof(fingerprint));
    if (!c->has_pin) {
        if (!preverify_ok && !c->verify_error[0])
            snprintf(c->verify_error, sizeof(c->verify_error), "%s",
                     X509_verify_cert_error_string(X509_STORE_CTX_get_error(store)));
        return preverify_ok;
    }
    if (fingerprint[0] && strcmp(fingerprint, c->pin) == 0) {
        X509_STORE_CTX_set_error(store, X509_V_OK);
        return 1;
    }
    c->pin_mismatch = 1;
    return 0;
}

int cws_tls_drain(cws_client *c) {
    if (!c->ssl) return 0;
    BIO *wbio = SSL_get_wbio(c->ssl);
    unsigned char chunk[16 * 1024];
    for (;;) {
        int n = BIO_read(wbio, chunk, sizeof(chunk));
        if (n <= 0) return 0;
        if (cws_out_append(c, chunk, (size_t)n) != 0) return -1;
    }
}

int cws_tls_start(cws_client *c, struct lws *wsi) {
    char why[256];
    ERR_clear_error();
    c->ssl_ctx = SSL_CTX_new(TLS_client_method());
    if (!c->ssl_ctx) goto fail;
    SSL_CTX_set_min_proto_version(c->ssl_ctx, TLS1_2_VERSION);
    if (!c->has_pin) {
        int loaded = c->ca_file ? SSL_CTX_load_verify_locations(c->ssl_ctx, c->ca_file, NULL)
                                : SSL_CTX_set_default_verify_paths(c->ssl_ctx);
        if (loaded != 1) goto fail;
    }
    SSL_CTX_set_verify(c->ssl_ctx, SSL_VERIFY_PEER, verify_callback);
    c->ssl = SSL_new(c->ssl_ctx);
    if (!c->ssl) goto fail;
    SSL_set_app_data(c->ssl, c);
    SSL_set_mode(c->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE);  // cws_client_io.c offers the rest again
    int literal = is_ip_literal(c->host);
    if (!literal) SSL_set_tlsext_host_name(c->ssl, c->host);  // no SNI for IP literals (RFC 6066)
    if (!c->has_pin) {
        X509_VERIFY_PARAM *param = SSL_get0_param(c->ssl);
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        int ok = literal ? X509_VERIFY_PARAM_set1_ip_asc(param, c->host)
                         : X509_VERIFY_PARAM_set1_host(param, c->host, 0);
        if (ok != 1) goto fail;
    }
    BIO *rbio = BIO_new(BIO_s_mem());
    BIO *wbio = BIO_new(BIO_s_mem());
    if (!rbio || !wbio) {
        BIO_free(rbio);
        BIO_free(wbio);
        goto fail;
    }
    SSL_set_bio(c->ssl, rbio, wbio);
    SSL_set_connect_state(c->ssl);
    c->tls_plain = malloc(TLS_READ_CHUNK);
    if (!c->tls_plain) goto fail;
    int r = SSL_do_handshake(c->ssl);  // queues the ClientHello
    if (r != 1 && SSL_get_error(c->ssl, r) != SSL_ERROR_WANT_READ) goto fail;
    if (cws_tls_drain(c) != 0) goto fail;
    if (cws_out_flush(c, wsi) != 0) goto fail;
    return 0;
fail:
    last_tls_error(why, sizeof(why), "could not set up TLS");
    char message[300];
    snprintf(message, sizeof(message), "TLS setup failed: %s", why);
    cws_client_fail(c, message);
    return -1;
}

static int handshake_step(cws_client *c, struct lws *wsi) {
    ERR_clear_error();
    int r = SSL_do_handshake(c->ssl);
    if (cws_tls_drain(c) != 0 || cws_out_flush(c, wsi) != 0) return -1;
    if (r == 1) {
        c->tls_ready = 1;
        return cws_client_transport_ready(c, wsi);
    }
    int e = SSL_get_error(c->ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return 0;
    char why[256], message[300];
    last_tls_error(why, sizeof(why), "handshake failed");
    snprintf(message, sizeof(message), "TLS handshake failed: %s", why);
    cws_client_fail(c, message);  // names the pin or trust failure when that was the cause
    return -1;
}

int cws_tls_receive(cws_client *c, struct lws *wsi, const unsigned char *in, size_t len) {
    if (BIO_write(SSL_get_rbio(c->ssl), in, (int)len) != (int)len) return -1;
    if (!c->tls_ready) {
        if (handshake_step(c, wsi) != 0) return -1;
        if (!c->tls_ready) return 0;
    }
    for (;;) {
        ERR_clear_error();
        int n = SSL_read(c->ssl, c->tls_plain, TLS_READ_CHUNK);
        if (n > 0) {
            if (cws_wire_receive(c, wsi, c->tls_plain, (size_t)n) != 0) return -1;
            if (c->terminal) return -1;
            continue;
        }
        int e = SSL_get_error(c->ssl, n);
        if (e == SSL_ERROR_WANT_READ) break;
        return -1;  // close_notify (like EOF) or a broken record
    }
    // e.g. a KeyUpdate answer, behind whatever is still unsent
    if (cws_tls_drain(c) != 0 || cws_out_flush(c, wsi) != 0) return -1;
    return 0;
}

void cws_tls_release(cws_client *c) {
    SSL_free(c->ssl);  // frees both BIOs
    c->ssl = NULL;
    SSL_CTX_free(c->ssl_ctx);
    c->ssl_ctx = NULL;
    free(c->tls_plain);
    c->tls_plain = NULL;
}
