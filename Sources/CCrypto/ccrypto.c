// CCrypto implementation: thin, allocation-local wrappers over the libcrypto EVP API.
#include "CCrypto.h"

#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

enum { SEED_LEN = 32, PUB_LEN = 32, SIG_LEN = 64, SHA256_LEN = 32 };

int ccrypto_ed25519_public_from_seed(const uint8_t seed[32], uint8_t pub_out[32]) {
    if (seed == NULL || pub_out == NULL) return CCRYPTO_ERR_ARGUMENT;
    ERR_clear_error();
    EVP_PKEY *pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, SEED_LEN);
    if (pkey == NULL) return CCRYPTO_ERR_LIBCRYPTO;
    size_t pub_len = PUB_LEN;
    int ok = EVP_PKEY_get_raw_public_key(pkey, pub_out, &pub_len) == 1 && pub_len == PUB_LEN;
    EVP_PKEY_free(pkey);
    if (!ok) {
        OPENSSL_cleanse(pub_out, PUB_LEN);
        return CCRYPTO_ERR_LIBCRYPTO;
    }
    return 0;
}

int ccrypto_ed25519_sign(const uint8_t seed[32], const uint8_t *msg, size_t len,
                         uint8_t sig_out[64]) {
    if (seed == NULL || sig_out == NULL || (msg == NULL && len > 0)) return CCRYPTO_ERR_ARGUMENT;
    static const uint8_t empty = 0;
    if (msg == NULL) msg = &empty;
    ERR_clear_error();
    int rc = CCRYPTO_ERR_LIBCRYPTO;
    EVP_PKEY *pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, SEED_LEN);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (pkey != NULL && ctx != NULL && EVP_DigestSignInit(ctx, NULL, NULL, NULL, pkey) == 1) {
        size_t sig_len = SIG_LEN;
        if (EVP_DigestSign(ctx, sig_out, &sig_len, msg, len) == 1 && sig_len == SIG_LEN) {
            rc = 0;
        }
    }
    // Freeing the context and key releases (and cleanses) libcrypto's copy of the private key.
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(pkey);
    if (rc != 0) OPENSSL_cleanse(sig_out, SIG_LEN);
    return rc;
}

int ccrypto_ed25519_verify(const uint8_t pub[32], const uint8_t *msg, size_t len,
                           const uint8_t sig[64]) {
    if (pub == NULL || sig == NULL || (msg == NULL && len > 0)) return CCRYPTO_ERR_ARGUMENT;
    static const uint8_t empty = 0;
    if (msg == NULL) msg = &empty;
    ERR_clear_error();
    int rc = CCRYPTO_ERR_LIBCRYPTO;
    EVP_PKEY *pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, PUB_LEN);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (pkey != NULL && ctx != NULL && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pkey) == 1) {
        // 1 = valid; 0 (or a negative value for a malformed signature) = invalid.
        rc = EVP_DigestVerify(ctx, sig, SIG_LEN, msg, len) == 1 ? 1 : 0;
        // A rejected signature is an answer, not an error: leave nothing in the queue.
        ERR_clear_error();
    }
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(pkey);
    return rc;
}

int ccrypto_sha256(const void *data, size_t len, uint8_t out[32]) {
    if (out == NULL || (data == NULL && len > 0)) return CCRYPTO_ERR_ARGUMENT;
    static const uint8_t empty = 0;
    if (data == NULL) data = &empty;
    ERR_clear_error();
    unsigned int out_len = 0;
    if (EVP_Digest(data, len, out, &out_len, EVP_sha256(), NULL) != 1 || out_len != SHA256_LEN) {
        return CCRYPTO_ERR_LIBCRYPTO;
    }
    return 0;
}

int ccrypto_random_bytes(uint8_t *out, size_t len) {
    if (out == NULL && len > 0) return CCRYPTO_ERR_ARGUMENT;
    ERR_clear_error();
    // RAND_bytes takes an int length: fill in chunks so any size_t works.
    while (len > 0) {
        int chunk = len > (size_t)INT_MAX ? INT_MAX : (int)len;
        if (RAND_bytes(out, chunk) != 1) return CCRYPTO_ERR_LIBCRYPTO;
        out += chunk;
        len -= (size_t)chunk;
    }
    return 0;
}

int ccrypto_last_error(char *buf, size_t len) {
    if (buf == NULL || len == 0) return CCRYPTO_ERR_ARGUMENT;
    unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) {
        static const char none[] = "no libcrypto error";
        size_t n = sizeof(none) - 1 < len - 1 ? sizeof(none) - 1 : len - 1;
        memcpy(buf, none, n);
        buf[n] = '\0';
        return 1;
    }
    ERR_error_string_n(code, buf, len);
    return 0;
}
