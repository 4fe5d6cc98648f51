// RFC 6455 for the client: the upgrade handshake, frame parsing with reassembly and a size
// limit, masked fragmented sending, ping/pong and the close handshake. Service thread only.
#define _GNU_SOURCE  // memmem, strcasestr
#include "cws_client_internal.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum { OP_CONTINUATION = 0, OP_TEXT = 1, OP_BINARY = 2, OP_CLOSE = 8, OP_PING = 9, OP_PONG = 10 };

static const char WS_GUID[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

int64_t cws_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void copy_text(char out[CWS_REASON_MAX], const void *bytes, size_t len) {
    if (len > CWS_REASON_MAX - 1) len = CWS_REASON_MAX - 1;
    const unsigned char *p = bytes;
    size_t n = 0;
    while (n < len && p[n] != 0) n++;
    if (n) memcpy(out, p, n);
    out[n] = 0;
}

static void drop_queue(cws_client *c) {
    cws_msg *msg = c->tx_head;
    while (msg) {
        cws_msg *next = msg->next;
        free(msg);
        msg = next;
    }
    c->tx_head = c->tx_tail = NULL;
}

// ---- handshake --------------------------------------------------------------------------------

int cws_wire_prepare_handshake(cws_client *c) {
    unsigned char nonce[16];
    char key[32];
    if (RAND_bytes(nonce, sizeof(nonce)) != 1) return -1;
    EVP_EncodeBlock((unsigned char *)key, nonce, sizeof(nonce));  // 24 characters

    char concat[64];
    snprintf(concat, sizeof(concat), "%s%s", key, WS_GUID);
    unsigned char sha1[EVP_MAX_MD_SIZE];
    unsigned int sha1_len = 0;
    if (EVP_Digest(concat, strlen(concat), sha1, &sha1_len, EVP_sha1(), NULL) != 1) return -1;
    EVP_EncodeBlock((unsigned char *)c->expected_accept, sha1, (int)sha1_len);  // 28 characters

    // No Origin (not a browser) and no subprotocol (the gateway uses none).
    static const char format[] = "GET %s HTTP/1.1\r\n"
                                 "Host: %s\r\n"
                                 "Upgrade: websocket\r\n"
                                 "Connection: Upgrade\r\n"
                                 "Sec-WebSocket-Key: %s\r\n"
                                 "Sec-WebSocket-Version: 13\r\n"
                                 "User-Agent: clawtalk\r\n"
                                 "\r\n";
    int n = snprintf(NULL, 0, format, c->path, c->host_header, key);
    if (n < 0) return -1;
    free(c->request);
    c->request = malloc((size_t)n + 1);
    if (!c->request) return -1;
    snprintf(c->request, (size_t)n + 1, format, c->path, c->host_header, key);
    c->request_len = (size_t)n;
    c->request_sent = 0;
    return 0;
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    char *end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t')) *--end = 0;
    return s;
}

/// Validates the complete response head (NUL-terminated, modified in place); 0 or -1.
static int check_response(cws_client *c, char *head) {
    char message[256];
    char *line_end = strstr(head, "\r\n");
    if (!line_end) {
        cws_client_fail(c, "invalid upgrade response");
        return -1;
    }
    *line_end = 0;
    int major = 0, minor = 0, status = 0, consumed = 0;
    if (sscanf(head, "HTTP/%d.%d %d%n", &major, &minor, &status, &consumed) < 3) {
        cws_client_fail(c, "invalid upgrade response status line");
        return -1;
    }
    if (status != 101) {
        snprintf(message, sizeof(message), "upgrade rejected: HTTP %d %.80s", status,
                 trim(head + consumed));
        cws_client_fail(c, message);
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
            if (!strcasecmp(name, "upgrade"))
                upgrade_ok = !strcasecmp(value, "websocket");
            else if (!strcasecmp(name, "connection"))
                connection_ok = strcasestr(value, "upgrade") != NULL;
            else if (!strcasecmp(name, "sec-websocket-accept"))
                accept_ok = !strcmp(value, c->expected_accept);
            else if (!strcasecmp(name, "sec-websocket-extensions") && *value) {
                cws_client_fail(c, "invalid upgrade response: extension we did not offer");
                return -1;
            } else if (!strcasecmp(name, "sec-websocket-protocol") && *value) {
                cws_client_fail(c, "invalid upgrade response: subprotocol we did not offer");
                return -1;
            }
        }
        line = next + 2;
    }
    if (!upgrade_ok || !connection_ok || !accept_ok) {
        snprintf(message, sizeof(message), "invalid upgrade response: %s",
                 !accept_ok ? "wrong or missing Sec-WebSocket-Accept"
                            : "missing Upgrade/Connection headers");
        cws_client_fail(c, message);
        return -1;
    }
    return 0;
}

/// Collects the response head. 0: need more; 1: accepted, `*used` bytes of `in` consumed; -1.
static int receive_handshake(cws_client *c, const unsigned char *in, size_t len, size_t *used) {
    if (!c->response) {
        c->response = malloc(CWS_HANDSHAKE_MAX + 1);
        if (!c->response) {
            cws_client_fail(c, "out of memory");
            return -1;
        }
    }
    size_t old_len = c->response_len;
    size_t room = CWS_HANDSHAKE_MAX - old_len;
    size_t take = len < room ? len : room;
    memcpy(c->response + old_len, in, take);
    c->response_len += take;
    c->response[c->response_len] = 0;
    size_t from = old_len > 3 ? old_len - 3 : 0;
    char *end = memmem(c->response + from, c->response_len - from, "\r\n\r\n", 4);
    if (!end) {
        if (c->response_len == CWS_HANDSHAKE_MAX) {
            cws_client_fail(c, "upgrade response headers too large");
            return -1;
        }
        return 0;
    }
    size_t head_len = (size_t)(end - c->response) + 4;
    *used = head_len - old_len;
    end[2] = 0;  // keep the last header's CRLF, cut the blank line
    int rc = check_response(c, c->response);
    free(c->response);
    c->response = NULL;
    c->response_len = 0;
    return rc < 0 ? -1 : 1;
}

// ---- closing ----------------------------------------------------------------------------------

void cws_wire_start_close(cws_client *c, struct lws *wsi, int code, const char *reason, int urgent) {
    if (c->close_sent || c->close_now) return;
    if (c->close_origin == CWS_CLOSE_NONE) {
        c->close_origin = CWS_CLOSE_LOCAL;
        c->final_code = code;
        copy_text(c->final_reason, reason, strlen(reason));
    }
    c->close_code = code;
    copy_text(c->close_reason, reason, strlen(reason));
    if (urgent) {
        c->close_now = 1;
        c->phase = PHASE_CLOSING;
        drop_queue(c);
    } else {
        c->close_requested = 1;
    }
    if (wsi) lws_callback_on_writable(wsi);
}

static int on_close_frame(cws_client *c, struct lws *wsi) {
    int code = 0;
    const unsigned char *reason = c->ctl;
    size_t reason_len = 0;
    if (c->ctl_len >= 2) {
        code = (c->ctl[0] << 8) | c->ctl[1];
        reason = c->ctl + 2;
        reason_len = c->ctl_len - 2;
    }
    c->close_received = 1;
    if (c->close_origin == CWS_CLOSE_NONE) {
        c->close_origin = CWS_CLOSE_PEER;
        c->final_code = code;
        copy_text(c->final_reason, reason, reason_len);
    }
    if (c->close_sent) return -1;  // the answer to our close: the handshake is complete
    // Answer with the same code (RFC 6455 5.5.1), then let the server close the TCP connection.
    c->close_code = code;
    c->close_reason[0] = 0;
    c->close_now = 1;
    c->phase = PHASE_CLOSING;
    drop_queue(c);
    lws_callback_on_writable(wsi);
    return 0;
}

// ---- receiving --------------------------------------------------------------------------------

static int protocol_error(cws_client *c, struct lws *wsi, const char *why) {
    if (c->close_sent) return -1;  // already closing and the stream is broken: just drop it
    cws_wire_start_close(c, wsi, 1002, why, 1);
    c->rx_state = -1;  // ignore everything after this point
    return 0;
}

static int reserve_message(cws_client *c, size_t needed) {
    if (needed <= c->msg_cap) return 0;
    size_t limit = c->loop.max_message_bytes;
    size_t cap = c->msg_cap ? c->msg_cap : 4096;
    while (cap < needed) cap = cap > SIZE_MAX / 2 ? needed : cap * 2;
    if (cap > limit) cap = limit;
    unsigned char *p = realloc(c->msg, cap);
    if (!p) return -1;
    c->msg = p;
    c->msg_cap = cap;
    return 0;
}

static int frame_end(cws_client *c, struct lws *wsi) {
    c->rx_state = RX_HEAD;
    c->head_have = 0;
    if (c->rx_discard) return 0;
    switch (c->rx_opcode) {
    case OP_CONTINUATION:
    case OP_TEXT:
    case OP_BINARY:
        if (!c->rx_fin) return 0;
        c->msg_active = 0;
        cws_client_emit_message(c, c->msg, c->msg_len, c->msg_binary);
        c->msg_len = 0;
        if (c->msg_cap > 1024 * 1024) {  // do not keep a 25 MiB buffer after a big message
            free(c->msg);
            c->msg = NULL;
            c->msg_cap = 0;
        }
        return 0;
    case OP_PING:
        if (c->phase == PHASE_OPEN && !c->close_sent) {
            memcpy(c->pong, c->ctl, c->ctl_len);
            c->pong_len = c->ctl_len;
            c->pong_pending = 1;
            lws_callback_on_writable(wsi);
        }
        return 0;
    case OP_PONG:
        cws_client_emit_pong(c);
        return 0;
    case OP_CLOSE:
        return on_close_frame(c, wsi);
    default:
        return 0;
    }
}

static int frame_begin(cws_client *c, struct lws *wsi) {
    c->rx_state = RX_PAYLOAD;
    c->rx_discard = 0;
    c->ctl_len = 0;
    if (c->rx_opcode < 8) {
        int closing = c->phase != PHASE_OPEN || c->close_now || c->close_sent;
        if (c->rx_opcode == OP_CONTINUATION && !c->msg_active && !closing)
            return protocol_error(c, wsi, "continuation frame without a message");
        if (c->rx_opcode != OP_CONTINUATION && c->msg_active && !closing)
            return protocol_error(c, wsi, "new message inside a fragmented one");
        if (closing) {
            c->rx_discard = 1;  // nobody reads messages after a close
        } else {
            if (c->rx_opcode != OP_CONTINUATION) {
                c->msg_active = 1;
                c->msg_binary = c->rx_opcode == OP_BINARY;
                c->msg_len = 0;
            }
            size_t room = c->loop.max_message_bytes - c->msg_len;
            if (c->rx_remaining > room) {
                c->msg_active = 0;
                c->msg_len = 0;
                c->rx_discard = 1;
                cws_wire_start_close(c, wsi, 1009, "message too large", 1);
            } else if (reserve_message(c, c->msg_len + (size_t)c->rx_remaining) != 0) {
                c->msg_active = 0;
                c->rx_discard = 1;
                cws_wire_start_close(c, wsi, 1011, "out of memory", 1);
            }
        }
    }
    if (c->rx_remaining == 0) return frame_end(c, wsi);
    return 0;
}

static int parse_frames(cws_client *c, struct lws *wsi, const unsigned char *p, size_t len) {
    while (len) {
        if (c->rx_state < 0) return 0;  // after a protocol error nothing is trusted
        switch (c->rx_state) {
        case RX_HEAD: {
            c->head[c->head_have++] = *p++;
            len--;
            if (c->head_have < 2) break;
            unsigned char b0 = c->head[0], b1 = c->head[1];
            c->rx_fin = (b0 & 0x80) != 0;
            c->rx_opcode = b0 & 0x0f;
            if (b0 & 0x70) return protocol_error(c, wsi, "reserved bits set");
            if (b1 & 0x80) return protocol_error(c, wsi, "masked frame from the server");
            if (c->rx_opcode >= 8) {
                if (c->rx_opcode > OP_PONG) return protocol_error(c, wsi, "unknown opcode");
                if (!c->rx_fin) return protocol_error(c, wsi, "fragmented control frame");
                if ((b1 & 0x7f) > CWS_CONTROL_MAX)
                    return protocol_error(c, wsi, "control frame too long");
            } else if (c->rx_opcode > OP_BINARY) {
                return protocol_error(c, wsi, "unknown opcode");
            }
            size_t len7 = b1 & 0x7f;
            if (len7 >= 126) {
                c->head_need = len7 == 126 ? 4 : 10;
                c->rx_state = RX_LENGTH;
            } else {
                c->rx_remaining = len7;
                if (frame_begin(c, wsi) < 0) return -1;
            }
            break;
        }
        case RX_LENGTH: {
            c->head[c->head_have++] = *p++;
            len--;
            if (c->head_have < c->head_need) break;
            uint64_t n = 0;
            for (size_t i = 2; i < c->head_need; i++) n = (n << 8) | c->head[i];
            if (n >> 63) return protocol_error(c, wsi, "invalid frame length");
            c->rx_remaining = n;
            if (frame_begin(c, wsi) < 0) return -1;
            break;
        }
        case RX_PAYLOAD: {
            size_t take = c->rx_remaining < len ? (size_t)c->rx_remaining : len;
            if (!c->rx_discard) {
                if (c->rx_opcode >= 8) {
                    memcpy(c->ctl + c->ctl_len, p, take);
                    c->ctl_len += take;
                } else {
                    memcpy(c->msg + c->msg_len, p, take);
                    c->msg_len += take;
                }
            }
            p += take;
            len -= take;
            c->rx_remaining -= take;
            if (c->rx_remaining == 0 && frame_end(c, wsi) < 0) return -1;
            break;
        }
        default:
            return 0;
        }
    }
    return 0;
}

int cws_wire_receive(cws_client *c, struct lws *wsi, const unsigned char *in, size_t len) {
    c->last_rx_ms = cws_now_ms();
    if (c->phase == PHASE_HANDSHAKE) {
        size_t used = 0;
        int rc = receive_handshake(c, in, len, &used);
        if (rc <= 0) return rc;
        cws_client_did_open(c, wsi);
        if (c->phase != PHASE_OPEN) return -1;
        in += used;
        len -= used;
    }
    if (c->phase != PHASE_OPEN && c->phase != PHASE_CLOSING) return 0;
    return parse_frames(c, wsi, in, len);
}

// ---- sending ----------------------------------------------------------------------------------

/// One masked frame (client frames are always masked), written in one piece.
static int write_frame(cws_client *c, struct lws *wsi, unsigned char first_byte,
                       const unsigned char *payload, size_t len) {
    unsigned char *f = c->frame;
    size_t n = 0;
    f[n++] = first_byte;
    if (len < 126) {
        f[n++] = (unsigned char)(0x80 | len);
    } else if (len <= 0xffff) {
        f[n++] = 0x80 | 126;
        f[n++] = (unsigned char)(len >> 8);
        f[n++] = (unsigned char)len;
    } else {
        f[n++] = 0x80 | 127;
        for (int shift = 56; shift >= 0; shift -= 8) f[n++] = (unsigned char)((uint64_t)len >> shift);
    }
    unsigned char mask[4];
    if (RAND_bytes(mask, sizeof(mask)) != 1) return -1;
    memcpy(f + n, mask, 4);
    n += 4;
    for (size_t i = 0; i < len; i++) f[n + i] = payload[i] ^ mask[i & 3];
    n += len;
    return cws_transport_write(c, wsi, f, n);
}

static int write_close(cws_client *c, struct lws *wsi) {
    unsigned char payload[CWS_CONTROL_MAX];
    size_t n = 0;
    if (c->close_code) {
        payload[n++] = (unsigned char)(c->close_code >> 8);
        payload[n++] = (unsigned char)c->close_code;
        size_t reason_len = strlen(c->close_reason);
        if (reason_len > CWS_CONTROL_MAX - 2) reason_len = CWS_CONTROL_MAX - 2;
        memcpy(payload + n, c->close_reason, reason_len);
        n += reason_len;
    }
    if (write_frame(c, wsi, 0x80 | OP_CLOSE, payload, n) != 0) return -1;
    c->close_sent = 1;
    c->close_now = 0;
    c->close_requested = 0;
    c->phase = PHASE_CLOSING;
    // Wait for the other side: its close frame (our close) or its TCP close (our echo).
    lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, CWS_CLOSE_WAIT_S);
    return 0;
}

int cws_wire_writable(cws_client *c, struct lws *wsi) {
    if (c->phase == PHASE_HANDSHAKE) {
        if (!c->request_sent && c->request) {
            c->request_sent = 1;
            return cws_transport_write(c, wsi, (unsigned char *)c->request, c->request_len);
        }
        return 0;
    }
    if ((c->phase != PHASE_OPEN && c->phase != PHASE_CLOSING) || c->close_sent) return 0;

    if (c->pong_pending && !c->close_now) {
        c->pong_pending = 0;
        if (write_frame(c, wsi, 0x80 | OP_PONG, c->pong, c->pong_len) != 0) return -1;
    } else if (c->close_now || (c->close_requested && !c->tx_head)) {
        return write_close(c, wsi);
    } else if (c->ping_pending) {
        c->ping_pending = 0;
        unsigned char payload[4];
        uint32_t counter = ++c->ping_counter;
        for (int i = 0; i < 4; i++) payload[i] = (unsigned char)(counter >> (24 - 8 * i));
        if (write_frame(c, wsi, 0x80 | OP_PING, payload, sizeof(payload)) != 0) return -1;
    } else if (c->tx_head) {
        cws_msg *msg = c->tx_head;
        size_t remaining = msg->len - msg->sent;
        size_t chunk = remaining < CWS_FRAGMENT_BYTES ? remaining : CWS_FRAGMENT_BYTES;
        int first = msg->sent == 0;
        int last = msg->sent + chunk == msg->len;
        unsigned char opcode = first ? ((msg->flags & CWS_SEND_BINARY) ? OP_BINARY : OP_TEXT)
                                     : OP_CONTINUATION;
        if (write_frame(c, wsi, (unsigned char)((last ? 0x80 : 0) | opcode),
                        msg->buf + LWS_PRE + msg->sent, chunk) != 0)
            return -1;
        msg->sent += chunk;
        if (last) {
            c->tx_head = msg->next;
            if (!c->tx_head) c->tx_tail = NULL;
            free(msg);
        }
    }
    if (c->pong_pending || c->ping_pending || c->tx_head || c->close_now || c->close_requested)
        lws_callback_on_writable(wsi);
    return 0;
}

void cws_wire_release(cws_client *c) {
    drop_queue(c);
    free(c->msg);
    c->msg = NULL;
    c->msg_cap = c->msg_len = 0;
    free(c->request);
    c->request = NULL;
    free(c->response);
    c->response = NULL;
    free(c->frame);
    c->frame = NULL;
}
