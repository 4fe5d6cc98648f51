// libFuzzer harness for the client's RFC 6455 frame parser (Sources/CWebSockets/cws_parse.c),
// the code that reads every frame a server sends.
//
// Input: one option byte, then the bytes "from the server". The same bytes go to two parsers,
// one fed in one piece and one in pieces whose sizes the option byte picks; both must report
// the same events (a chunk boundary must never change what the client sees). Every event is
// checked against what RFC 6455 allows the client to act on.
#include "../Sources/CWebSockets/cws_parse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 4096

typedef struct record {
    int event;
    int code;
    size_t len;
    uint64_t hash;
} record;

static uint64_t fnv(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

#define CHECK(x) \
    do {         \
        if (!(x)) __builtin_trap(); \
    } while (0)

/// Checks one event against the RFC and records it.
static void check_event(const cws_rx *rx, cws_rx_event ev, record *out) {
    memset(out, 0, sizeof(*out));
    out->event = ev;
    switch (ev) {
    case CWS_RX_MESSAGE:
        CHECK(rx->msg_len <= rx->max_message_bytes);
        CHECK(rx->msg_len == 0 || rx->msg != NULL);
        if (!rx->msg_binary) CHECK(cws_utf8_valid(rx->msg, rx->msg_len));
        out->code = rx->msg_binary;
        out->len = rx->msg_len;
        out->hash = rx->msg_len ? fnv(rx->msg, rx->msg_len) : 0;
        break;
    case CWS_RX_PING:
    case CWS_RX_PONG:
        CHECK(rx->ctl_len <= CWS_CONTROL_MAX);
        out->len = rx->ctl_len;
        out->hash = fnv(rx->ctl, rx->ctl_len);
        break;
    case CWS_RX_CLOSE:
        CHECK(rx->close_code == 0 || cws_close_code_is_sendable(rx->close_code));
        CHECK(rx->close_code != 0 || rx->close_reason_len == 0);
        CHECK(rx->close_reason_len <= CWS_CONTROL_MAX - 2);
        CHECK(cws_utf8_valid(rx->close_reason, rx->close_reason_len));
        out->code = rx->close_code;
        out->len = rx->close_reason_len;
        out->hash = fnv(rx->close_reason, rx->close_reason_len);
        break;
    case CWS_RX_FAIL:
        CHECK(rx->fail_code == 1002 || rx->fail_code == 1007 || rx->fail_code == 1009 ||
              rx->fail_code == 1011);
        CHECK(rx->fail_reason && rx->fail_reason[0]);
        out->code = rx->fail_code;
        out->hash = fnv((const uint8_t *)rx->fail_reason, strlen(rx->fail_reason));
        break;
    default:
        CHECK(0);  // feed returns NONE only when the input is used up
    }
}

/// Feeds `data` in pieces of `piece` bytes (0 = all at once); returns the number of events.
static size_t run(const uint8_t *data, size_t size, size_t piece, size_t limit, int discard_after_close,
                  record *events) {
    cws_rx rx;
    memset(&rx, 0, sizeof(rx));
    rx.max_message_bytes = limit;
    size_t count = 0;
    size_t pos = 0;
    while (pos < size) {
        size_t end = piece && size - pos > piece ? pos + piece : size;
        while (pos < end) {
            size_t used = 0;
            cws_rx_event ev = cws_rx_feed(&rx, data + pos, end - pos, &used);
            CHECK(used >= 1 && used <= end - pos);
            pos += used;
            if (ev == CWS_RX_NONE) {
                CHECK(pos == end);
                continue;
            }
            if (count < MAX_EVENTS) check_event(&rx, ev, &events[count]);
            count++;
            // Like the client: after a close or a failure, data is no longer read.
            if (discard_after_close && (ev == CWS_RX_CLOSE || ev == CWS_RX_FAIL)) rx.discard_data = 1;
        }
    }
    cws_rx_release(&rx);
    return count;
}

static record whole[MAX_EVENTS], pieces[MAX_EVENTS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t options = data[0];
    data++;
    size--;
    static const size_t limits[4] = {16, 300, 70000, 1 << 20};
    size_t limit = limits[options & 3];
    int discard = (options >> 2) & 1;
    size_t piece = 1 + ((options >> 3) & 31) * 3;  // 1, 4, 7, ... 94 bytes
    size_t n1 = run(data, size, 0, limit, discard, whole);
    size_t n2 = run(data, size, piece, limit, discard, pieces);
    CHECK(n1 == n2);
    size_t n = n1 < MAX_EVENTS ? n1 : MAX_EVENTS;
    CHECK(memcmp(whole, pieces, n * sizeof(record)) == 0);
    return 0;
}
