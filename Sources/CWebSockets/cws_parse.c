#define _GNU_SOURCE  // memmem
// The client's pure parsers (see cws_parse.h): RFC 6455 frames from the server and the HTTP
// upgrade response. Everything here is reachable from the network, so every length is checked
// before it is used and nothing is trusted to be NUL-terminated.
#include "cws_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { OP_CONTINUATION = 0, OP_TEXT = 1, OP_BINARY = 2, OP_CLOSE = 8, OP_PING = 9, OP_PONG = 10 };

/// Parser states.
enum { RX_HEAD = 0, RX_LENGTH, RX_PAYLOAD, RX_DEAD };

// ---- UTF-8 ------------------------------------------------------------------------------------

int cws_utf8_feed(cws_utf8 *u, const uint8_t *p, size_t len) {
    for (size_t i = 0; i < len; i++) {
        uint8_t b = p[i];
        if (u->need) {
            if (b < u->lo || b > u->hi) return -1;
            u->lo = 0x80;
            u->hi = 0xbf;
            u->need--;
            continue;
        }
        if (b < 0x80) continue;
        u->lo = 0x80;
        u->hi = 0xbf;
        if (b >= 0xc2 && b <= 0xdf) {
            u->need = 1;
        } else if (b >= 0xe0 && b <= 0xef) {
            u->need = 2;
            if (b == 0xe0) u->lo = 0xa0;  // overlong below U+0800
            if (b == 0xed) u->hi = 0x9f;  // surrogates U+D800...U+DFFF
        } else if (b >= 0xf0 && b <= 0xf4) {
            u->need = 3;
            if (b == 0xf0) u->lo = 0x90;  // overlong below U+10000
            if (b == 0xf4) u->hi = 0x8f;  // above U+10FFFF
        } else {
            return -1;  // continuation byte without a lead, 0xc0/0xc1 (overlong), 0xf5...0xff
        }
    }
    return 0;
}

int cws_utf8_valid(const uint8_t *p, size_t len) {
    cws_utf8 u = {0};
    return cws_utf8_feed(&u, p, len) == 0 && u.need == 0;
}

int cws_close_code_is_sendable(int code) {
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
           (code >= 3000 && code <= 4999);
}

// ---- frames -----------------------------------------------------------------------------------

static cws_rx_event fail(cws_rx *rx, int code, const char *why) {
    rx->fail_code = code;
    rx->fail_reason = why;
    return CWS_RX_FAIL;
}

/// A framing error: nothing after this point can be trusted.
static cws_rx_event fail_framing(cws_rx *rx, const char *why) {
    rx->state = RX_DEAD;
    rx->msg_active = 0;
    return fail(rx, 1002, why);
}

/// Ends the message being reassembled and drops the rest of the current frame.
static cws_rx_event fail_message(cws_rx *rx, int code, const char *why) {
    rx->msg_active = 0;
    rx->msg_len = 0;
    rx->discard = 1;
    return fail(rx, code, why);
}

static int reserve_message(cws_rx *rx, size_t needed) {
    if (needed <= rx->msg_cap) return 0;
    size_t limit = rx->max_message_bytes;
    size_t cap = rx->msg_cap ? rx->msg_cap : 4096;
    while (cap < needed) cap = cap > SIZE_MAX / 2 ? needed : cap * 2;
    if (cap > limit) cap = limit;  // needed <= limit was checked by the caller
    uint8_t *p = realloc(rx->msg, cap);
    if (!p) return -1;
    rx->msg = p;
    rx->msg_cap = cap;
    return 0;
}

static cws_rx_event close_frame(cws_rx *rx) {
    rx->close_code = 0;
    rx->close_reason = rx->ctl;
    rx->close_reason_len = 0;
    if (rx->ctl_len == 0) return CWS_RX_CLOSE;
    // 5.5.1: a body starts with a 2-byte code; 7.4: only codes an endpoint may send.
    if (rx->ctl_len == 1) return fail(rx, 1002, "close frame with a 1-byte payload");
    int code = (rx->ctl[0] << 8) | rx->ctl[1];
    if (!cws_close_code_is_sendable(code)) return fail(rx, 1002, "invalid close code");
    if (!cws_utf8_valid(rx->ctl + 2, rx->ctl_len - 2))
        return fail(rx, 1007, "close reason is not valid UTF-8");
    rx->close_code = code;
    rx->close_reason = rx->ctl + 2;
    rx->close_reason_len = rx->ctl_len - 2;
    return CWS_RX_CLOSE;
}

static cws_rx_event frame_end(cws_rx *rx) {
    rx->state = RX_HEAD;
    rx->head_have = 0;
    if (rx->discard) return CWS_RX_NONE;
    switch (rx->opcode) {
    case OP_CONTINUATION:
    case OP_TEXT:
    case OP_BINARY:
        if (!rx->fin) return CWS_RX_NONE;
        rx->msg_active = 0;
        if (!rx->msg_binary && rx->utf8.need)
            return fail_message(rx, 1007, "text message is not valid UTF-8");
        rx->delivered = 1;
        return CWS_RX_MESSAGE;
    case OP_PING:
        return CWS_RX_PING;
    case OP_PONG:
        return CWS_RX_PONG;
    default:
        return close_frame(rx);
    }
}

static cws_rx_event frame_begin(cws_rx *rx) {
    rx->state = RX_PAYLOAD;
    rx->discard = 0;
    rx->ctl_len = 0;
    if (rx->opcode < 8) {
        if (rx->discard_data) {
            rx->discard = 1;  // nobody reads messages after a close
        } else {
            if (rx->opcode == OP_CONTINUATION && !rx->msg_active)
                return fail_framing(rx, "continuation frame without a message");
            if (rx->opcode != OP_CONTINUATION && rx->msg_active)
                return fail_framing(rx, "new message inside a fragmented one");
            if (rx->opcode != OP_CONTINUATION) {
                rx->msg_active = 1;
                rx->msg_binary = rx->opcode == OP_BINARY;
                rx->msg_len = 0;
                memset(&rx->utf8, 0, sizeof(rx->utf8));
            }
            size_t room = rx->max_message_bytes - rx->msg_len;
            if (rx->remaining > room) return fail_message(rx, 1009, "message too large");
            if (reserve_message(rx, rx->msg_len + (size_t)rx->remaining) != 0)
                return fail_message(rx, 1011, "out of memory");
        }
    }
    if (rx->remaining == 0) return frame_end(rx);
    return CWS_RX_NONE;
}

/// The first two header bytes are in: check them, then read the length or begin the payload.
static cws_rx_event head_done(cws_rx *rx) {
    uint8_t b0 = rx->head[0], b1 = rx->head[1];
    rx->fin = (b0 & 0x80) != 0;
    rx->opcode = b0 & 0x0f;
    if (b0 & 0x70) return fail_framing(rx, "reserved bits set");
    if (b1 & 0x80) return fail_framing(rx, "masked frame from the server");
    if (rx->opcode >= 8) {
        if (rx->opcode > OP_PONG) return fail_framing(rx, "unknown opcode");
        if (!rx->fin) return fail_framing(rx, "fragmented control frame");
        if ((b1 & 0x7f) > CWS_CONTROL_MAX) return fail_framing(rx, "control frame too long");
    } else if (rx->opcode > OP_BINARY) {
        return fail_framing(rx, "unknown opcode");
    }
    size_t len7 = b1 & 0x7f;
    if (len7 >= 126) {
        rx->head_need = len7 == 126 ? 4 : 10;
        rx->state = RX_LENGTH;
        return CWS_RX_NONE;
    }
    rx->remaining = len7;
    return frame_begin(rx);
}

/// The extended length is in (5.2: "the minimal number of bytes MUST be used").
static cws_rx_event length_done(cws_rx *rx) {
    uint64_t n = 0;
    for (size_t i = 2; i < rx->head_need; i++) n = (n << 8) | rx->head[i];
    if (rx->head_need == 4) {
        if (n < 126) return fail_framing(rx, "non-minimal frame length");
    } else {
        if (n >> 63) return fail_framing(rx, "invalid frame length");
        if (n <= 0xffff) return fail_framing(rx, "non-minimal frame length");
    }
    rx->remaining = n;
    return frame_begin(rx);
}

/// `take` payload bytes of the current frame.
static cws_rx_event payload(cws_rx *rx, const uint8_t *p, size_t take) {
    if (rx->discard) return CWS_RX_NONE;
    if (rx->opcode >= 8) {
        memcpy(rx->ctl + rx->ctl_len, p, take);  // the head check keeps ctl_len <= 125
        rx->ctl_len += take;
        return CWS_RX_NONE;
    }
    if (!rx->msg_binary && cws_utf8_feed(&rx->utf8, p, take) != 0)
        return fail_message(rx, 1007, "text message is not valid UTF-8");
    memcpy(rx->msg + rx->msg_len, p, take);  // frame_begin reserved the whole frame
    rx->msg_len += take;
    return CWS_RX_NONE;
}

cws_rx_event cws_rx_feed(cws_rx *rx, const uint8_t *in, size_t len, size_t *used) {
    if (rx->delivered) {
        rx->delivered = 0;
        rx->msg_len = 0;
        if (rx->msg_cap > 1024 * 1024) {  // do not keep a 25 MiB buffer after a big message
            free(rx->msg);
            rx->msg = NULL;
            rx->msg_cap = 0;
        }
    }
    size_t i = 0;
    cws_rx_event ev = CWS_RX_NONE;
    while (i < len && ev == CWS_RX_NONE) {
        switch (rx->state) {
        case RX_HEAD:
            rx->head[rx->head_have++] = in[i++];
            if (rx->head_have == 2) ev = head_done(rx);
            break;
        case RX_LENGTH:
            rx->head[rx->head_have++] = in[i++];
            if (rx->head_have == rx->head_need) ev = length_done(rx);
            break;
        case RX_PAYLOAD: {
            size_t take = rx->remaining < len - i ? (size_t)rx->remaining : len - i;
            ev = payload(rx, in + i, take);
            i += take;
            rx->remaining -= take;
            if (rx->remaining == 0) {
                cws_rx_event end = frame_end(rx);  // a failed frame ends quietly (discard)
                if (ev == CWS_RX_NONE) ev = end;
            }
            break;
        }
        default:  // RX_DEAD
            i = len;
            break;
        }
    }
    *used = i;
    return ev;
}

void cws_rx_release(cws_rx *rx) {
    free(rx->msg);
    rx->msg = NULL;
    rx->msg_len = rx->msg_cap = 0;
}

// ---- upgrade response -------------------------------------------------------------------------

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    char *end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t')) *--end = 0;
    return s;
}

/// "HTTP/<digit>.<digit> <3 digits>" then a space or the end; the status, or -1.
static int status_code(const char *line, const char **rest) {
    if (strncmp(line, "HTTP/", 5) != 0) return -1;
    const char *p = line + 5;
    if (*p < '0' || *p > '9' || p[1] != '.' || p[2] < '0' || p[2] > '9' || p[3] != ' ') return -1;
    p += 4;
    int status = 0;
    for (int i = 0; i < 3; i++, p++) {
        if (*p < '0' || *p > '9') return -1;
        status = status * 10 + (*p - '0');
    }
    if (*p && *p != ' ') return -1;
    *rest = p;
    return status;
}

/// Validates the complete head (NUL-terminated, without the blank line, modified in place).
static int check_head(char *head, const char *expected_accept, char *why, size_t whylen) {
    char *line_end = strstr(head, "\r\n");
    if (!line_end) {
        snprintf(why, whylen, "invalid upgrade response");
        return -1;
    }
    *line_end = 0;
    const char *rest = NULL;
    int status = status_code(head, &rest);
    if (status < 0) {
        snprintf(why, whylen, "invalid upgrade response status line");
        return -1;
    }
    if (status != 101) {
        char text[96];
        snprintf(text, sizeof(text), "%s", rest);
        snprintf(why, whylen, "upgrade rejected: HTTP %d %.80s", status, trim(text));
        return -1;
    }
    int upgrade_ok = 0, connection_ok = 0, accept_ok = 0;
    char *line = line_end + 2;
    while (*line) {
        char *next = strstr(line, "\r\n");
        if (!next) break;
        *next = 0;
        char *colon = strchr(line, ':');
        if (colon) {
            *colon = 0;
            char *name = trim(line);
            char *value = trim(colon + 1);
            if (!strcasecmp(name, "upgrade")) {
                upgrade_ok = !strcasecmp(value, "websocket");
            } else if (!strcasecmp(name, "connection")) {
                connection_ok = 0;  // a token list: look for the "upgrade" token
                for (char *t = value; *t;) {
                    size_t n = strcspn(t, ",");
                    char saved = t[n];
                    t[n] = 0;
                    if (!strcasecmp(trim(t), "upgrade")) connection_ok = 1;
                    t[n] = saved;
                    t += n + (saved ? 1 : 0);
                }
            } else if (!strcasecmp(name, "sec-websocket-accept")) {
                accept_ok = !strcmp(value, expected_accept);
            } else if (!strcasecmp(name, "sec-websocket-extensions") && *value) {
                snprintf(why, whylen, "invalid upgrade response: extension we did not offer");
                return -1;
            } else if (!strcasecmp(name, "sec-websocket-protocol") && *value) {
                snprintf(why, whylen, "invalid upgrade response: subprotocol we did not offer");
                return -1;
            }
        }
        line = next + 2;
    }
    if (!upgrade_ok || !connection_ok || !accept_ok) {
        snprintf(why, whylen, "invalid upgrade response: %s",
                 !accept_ok ? "wrong or missing Sec-WebSocket-Accept"
                            : "missing Upgrade/Connection headers");
        return -1;
    }
    return 0;
}

int cws_upgrade_feed(cws_upgrade *u, const uint8_t *in, size_t len, const char *expected_accept,
                     size_t *used, char *why, size_t whylen) {
    *used = 0;
    if (!u->buf) {
        u->buf = malloc(CWS_HANDSHAKE_MAX + 1);
        if (!u->buf) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
    }
    size_t old_len = u->len;
    size_t room = CWS_HANDSHAKE_MAX - old_len;
    size_t take = len < room ? len : room;
    if (take) memcpy(u->buf + old_len, in, take);
    u->len += take;
    u->buf[u->len] = 0;
    size_t from = old_len > 3 ? old_len - 3 : 0;
    char *end = memmem(u->buf + from, u->len - from, "\r\n\r\n", 4);
    if (!end) {
        if (u->len == CWS_HANDSHAKE_MAX) {
            snprintf(why, whylen, "upgrade response headers too large");
            return -1;
        }
        return 0;
    }
    size_t head_len = (size_t)(end - u->buf) + 4;
    *used = head_len - old_len;
    if (memchr(u->buf, 0, head_len)) {  // C string handling below would miss the rest
        snprintf(why, whylen, "invalid upgrade response: NUL byte in the head");
        return -1;
    }
    end[2] = 0;  // keep the last header's CRLF, cut the blank line
    int rc = check_head(u->buf, expected_accept, why, whylen);
    cws_upgrade_release(u);
    return rc < 0 ? -1 : 1;
}

void cws_upgrade_release(cws_upgrade *u) {
    free(u->buf);
    u->buf = NULL;
    u->len = 0;
}
