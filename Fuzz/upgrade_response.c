// libFuzzer harness for the client's HTTP upgrade-response reader (cws_upgrade_feed in
// Sources/CWebSockets/cws_parse.c), the first thing the client reads from a server.
//
// Input: one option byte (how to split), then the bytes "from the server". The response is fed
// once in one piece and once in pieces; the verdict and where the head ended must not depend on
// the split, and an accepted head must really end with the blank line.
#include "../Sources/CWebSockets/cws_parse.h"

#include <stdint.h>
#include <string.h>

#define CHECK(x) \
    do {         \
        if (!(x)) __builtin_trap(); \
    } while (0)

// RFC 6455 1.3's example: the key "dGhlIHNhbXBsZSBub25jZQ==" gives this accept value.
static const char ACCEPT[] = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

/// Feeds in pieces; returns the verdict and sets `*end` to the input offset where it came.
static int run(const uint8_t *data, size_t size, size_t piece, size_t *end) {
    cws_upgrade u;
    memset(&u, 0, sizeof(u));
    char why[256];
    size_t pos = 0;
    int rc = 0;
    while (pos < size && rc == 0) {
        size_t n = piece && size - pos > piece ? piece : size - pos;
        size_t used = 0;
        why[0] = 0;
        rc = cws_upgrade_feed(&u, data + pos, n, ACCEPT, &used, why, sizeof(why));
        if (rc == 1) {
            CHECK(used >= 1 && used <= n);
            pos += used;
        } else {
            CHECK(used <= n);
            if (rc < 0) CHECK(why[0] != 0 && strlen(why) < sizeof(why));
            pos += n;
        }
    }
    cws_upgrade_release(&u);
    *end = pos;
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    size_t piece = 1 + (data[0] % 64);
    data++;
    size--;
    size_t end1 = 0, end2 = 0;
    int rc1 = run(data, size, 0, &end1);
    int rc2 = run(data, size, piece, &end2);
    CHECK(rc1 == rc2);
    if (rc1 == 1) {
        CHECK(end1 == end2);
        CHECK(end1 >= 4 && memcmp(data + end1 - 4, "\r\n\r\n", 4) == 0);
        // The head is the first blank line: none ends earlier.
        for (size_t i = 0; i + 4 < end1; i++) CHECK(memcmp(data + i, "\r\n\r\n", 4) != 0);
    }
    return 0;
}
