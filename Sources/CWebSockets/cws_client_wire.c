// RFC 6455 for the client: the upgrade handshake, frame parsing with reassembly and a size
// limit, masked fragmented sending, ping/pong and the close handshake. Service thread only.
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

/// Collects the response head. 0: need more; 1: accepted, `*used` bytes of `in` consumed; -1.
static int receive_handshake(cws_client *c, const unsigned char *in, size_t len, size_t *used) {
    char why[256];
    int rc = cws_upgrade_feed(&c->upgrade, in, len, c->expected_accept, used, why, sizeof(why));
    if (rc < 0) cws_client_fail(c, why);
    return rc;
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
    c->close_received = 1;
    if (c->close_origin == CWS_CLOSE_NONE) {
        c->close_origin = CWS_CLOSE_PEER;
        c->final_code = c->rx.close_code;
        copy_text(c->final_reason, c->rx.close_reason, c->rx.close_reason_len);
    }
    if (c->close_sent) return -1;  // the answer to our close: the handshake is complete
    if (c->close_now) return 0;    // our own close (a failure) is about to go out: keep its code
    // Answer with the same code (RFC 6455 5.5.1), then let the server close the TCP connection.
    c->close_code = c->rx.close_code;
    c->close_reason[0] = 0;
    c->close_now = 1;
    c->phase = PHASE_CLOSING;
    drop_queue(c);
    lws_callback_on_writable(wsi);
    return 0;
}

// ---- receiving --------------------------------------------------------------------------------

/// Fails the connection (RFC 6455 7.1.7): a close frame with `code` goes out before anything else.
static int fail_connection(cws_client *c, struct lws *wsi, int code, const char *why) {
    if (c->close_sent && code != 1009 && code != 1011)
        return -1;  // already closing and the stream is broken: just drop it
    cws_wire_start_close(c, wsi, code, why, 1);
    return 0;
}

/// Acts on one parser event; 0, or -1 to drop the socket.
static int on_rx_event(cws_client *c, struct lws *wsi, cws_rx_event ev) {
    switch (ev) {
    case CWS_RX_MESSAGE:
        cws_client_emit_message(c, c->rx.msg, c->rx.msg_len, c->rx.msg_binary);
        return 0;
    case CWS_RX_PING:
        if (c->phase == PHASE_OPEN && !c->close_sent) {
            memcpy(c->pong, c->rx.ctl, c->rx.ctl_len);
            c->pong_len = c->rx.ctl_len;
            c->pong_pending = 1;
            lws_callback_on_writable(wsi);
        }
        return 0;
    case CWS_RX_PONG:
        cws_client_emit_pong(c);
        return 0;
    case CWS_RX_CLOSE:
        return on_close_frame(c, wsi);
    case CWS_RX_FAIL:
        return fail_connection(c, wsi, c->rx.fail_code, c->rx.fail_reason);
    default:
        return 0;
    }
}

static int parse_frames(cws_client *c, struct lws *wsi, const unsigned char *p, size_t len) {
    while (len && !c->terminal) {
        // Nobody reads messages once a close is under way.
        c->rx.discard_data = c->phase != PHASE_OPEN || c->close_now || c->close_sent;
        size_t used = 0;
        cws_rx_event ev = cws_rx_feed(&c->rx, p, len, &used);
        p += used;
        len -= used;
        if (on_rx_event(c, wsi, ev) != 0) return -1;
    }
    return 0;
}

int cws_wire_receive(cws_client *c, struct lws *wsi, const unsigned char *in, size_t len) {
    c->last_rx_ms = cws_now_ms();
    if (c->phase == PHASE_HANDSHAKE) {
        size_t used = 0;
        int rc = receive_handshake(c, in, len, &used);
        if (rc <= 0) return rc;
        c->rx.max_message_bytes = c->loop.max_message_bytes;
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
            return cws_transport_write(c, wsi, (unsigned char *)c->request, c->request_len) ? -1 : 1;
        }
        return 0;
    }
    if ((c->phase != PHASE_OPEN && c->phase != PHASE_CLOSING) || c->close_sent) return 0;

    if (c->pong_pending && !c->close_now) {
        c->pong_pending = 0;
        if (write_frame(c, wsi, 0x80 | OP_PONG, c->pong, c->pong_len) != 0) return -1;
    } else if (c->close_now || (c->close_requested && !c->tx_head)) {
        return write_close(c, wsi) ? -1 : 1;
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
    } else {
        return 0;
    }
    return 1;
}

int cws_wire_wants_to_write(const cws_client *c) {
    if (c->phase == PHASE_HANDSHAKE) return !c->request_sent && c->request;
    if ((c->phase != PHASE_OPEN && c->phase != PHASE_CLOSING) || c->close_sent) return 0;
    return c->pong_pending || c->ping_pending || c->tx_head || c->close_now || c->close_requested;
}

void cws_wire_release(cws_client *c) {
    drop_queue(c);
    cws_rx_release(&c->rx);
    free(c->request);
    c->request = NULL;
    cws_upgrade_release(&c->upgrade);
    free(c->frame);
    c->frame = NULL;
}
