// CCrypto: Ed25519, SHA-256 and randomness over OpenSSL libcrypto 3.0.
//
// Every function returns 0 on success and a negative CCRYPTO_ERR_* value on failure, except
// ccrypto_ed25519_verify (1 valid, 0 invalid, negative on error). No global state: each call
// creates and frees its own EVP objects and clears key material with OPENSSL_cleanse. The
// OpenSSL error queue is per thread; every call clears it on entry, so ccrypto_last_error on
// the same thread right after a failed call describes that failure.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A pointer argument was NULL (or a length was impossible).
#define CCRYPTO_ERR_ARGUMENT (-1)
/// libcrypto reported a failure; ccrypto_last_error has its message.
#define CCRYPTO_ERR_LIBCRYPTO (-2)

/// Derives the raw 32-byte Ed25519 public key from a 32-byte private seed.
int ccrypto_ed25519_public_from_seed(const uint8_t seed[32], uint8_t pub_out[32]);

/// Signs `len` bytes at `msg` (pure Ed25519, no pre-hash) with the key from `seed`.
int ccrypto_ed25519_sign(const uint8_t seed[32], const uint8_t *msg, size_t len,
                         uint8_t sig_out[64]);

/// Verifies a 64-byte signature: 1 valid, 0 invalid, negative on error.
int ccrypto_ed25519_verify(const uint8_t pub[32], const uint8_t *msg, size_t len,
                           const uint8_t sig[64]);

/// SHA-256 of `len` bytes at `data` into `out`.
int ccrypto_sha256(const void *data, size_t len, uint8_t out[32]);

/// Fills `out` with `len` bytes from libcrypto's CSPRNG (RAND_bytes).
int ccrypto_random_bytes(uint8_t *out, size_t len);

/// Writes libcrypto's message for this thread's oldest queued error into `buf` (always
/// NUL-terminated when len > 0) and clears the queue. Returns 0 if there was an error to
/// describe, 1 if the queue was empty (buf then holds "no libcrypto error"), negative on bad
/// arguments.
int ccrypto_last_error(char *buf, size_t len);

#ifdef __cplusplus
}
#endif
