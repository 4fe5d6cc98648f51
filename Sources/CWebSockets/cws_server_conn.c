// The server's per-connection logic over libwebsockets' ws role: message reassembly with a size
// limit, fragmented or single-frame sending, and the close handshake. Service thread only.
#include "cws_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- connection -------------------------------------------------------------------------------

static void copy_reason(char out[CWS_REASON_MAX], const void *bytes, size_t len) {
    if (len > CWS_REASON_MAX - 1) len = CWS_REASON_MAX - 1;
    const unsigned char *p = bytes;
    size_t n = 0;
    while (n < len && p[n] != 0) n++;  // a NUL would end the C string early anyway
    if (n) memcpy(out, p, n);
    out[n] = 0;
}

static void record_close(cws_conn *conn, int origin, int code, const char *reason, size_t len) {
    if (conn->close_origin != CWS_CLOSE_NONE) return;  // whoever closed first defines the close
    conn->close_origin = origin;
    conn->final_code = code;
    copy_reason(conn->final_reason, reason, len);
}

void cws_conn_enqueue(cws_conn *conn, cws_msg *msg) {
    msg->next = NULL;
    if (conn->tx_tail)
        conn->tx_tail->next = msg;
    else
        conn->tx_head = msg;
    conn->tx_tail = msg;
}

void cws_conn_request_close(cws_conn *conn, int code, const char *reason) {
    if (conn->close_requested) return;
    conn->close_requested = 1;
    conn->close_code = code;
    snprintf(conn->close_reason, sizeof(conn->close_reason), "%s", reason ? reason : "");
}

static int grow_rx(cws_conn *conn, size_t needed, size_t limit) {
    if (needed <= conn->rx_cap) return 0;
    size_t cap = conn->rx_cap ? conn->rx_cap : 4096;
    while (cap < needed) cap = cap > SIZE_MAX / 2 ? needed : cap * 2;
    if (cap > limit && needed <= limit) cap = limit;
    unsigned char *rx = realloc(conn->rx, cap);
    if (!rx) return -1;
    conn->rx = rx;
    conn->rx_cap = cap;
    return 0;
}

int cws_conn_receive(cws_loop *loop, cws_conn *conn, struct lws *wsi, const void *in, size_t len) {
    if (conn->close_origin != CWS_CLOSE_NONE) return 0;  // closing: drop whatever still arrives
    if (!conn->rx_active) {
        conn->rx_active = 1;
        conn->rx_binary = lws_frame_is_binary(wsi);
        conn->rx_len = 0;
    }
    size_t max = loop->max_message_bytes;
    size_t room = max - conn->rx_len;  // rx_len <= max always holds
    size_t rest_of_frame = lws_remaining_packet_payload(wsi);
    if (len > room || rest_of_frame > room - len) {
        static const char reason[] = "message too large";
        conn->rx_active = 0;
        conn->rx_len = 0;
        record_close(conn, CWS_CLOSE_LOCAL, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, reason,
                     sizeof(reason) - 1);
        lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, (unsigned char *)reason,
                         sizeof(reason) - 1);
        return -1;
    }
    // Reserve the rest of this frame at once so one big frame costs one allocation.
    if (grow_rx(conn, conn->rx_len + len + rest_of_frame, max) != 0) {
        static const char reason[] = "out of memory";
        record_close(conn, CWS_CLOSE_LOCAL, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, reason,
                     sizeof(reason) - 1);
        lws_close_reason(wsi, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, (unsigned char *)reason,
                         sizeof(reason) - 1);
        return -1;
    }
    if (len) memcpy(conn->rx + conn->rx_len, in, len);
    conn->rx_len += len;
    // Traffic from the peer proves the link works: no keepalive ping needed for a while.
    lws_validity_confirmed(wsi);
    if (!lws_is_final_fragment(wsi)) return 0;

    cws_event ev = {0};
    ev.kind = CWS_EVENT_MESSAGE;
    ev.conn_id = conn->id;
    ev.data = conn->rx;
    ev.len = conn->rx_len;
    ev.is_binary = conn->rx_binary;
    ev.text = "";
    ev.cert_sha256 = "";
    cws_emit(loop, &ev);
    conn->rx_active = 0;
    conn->rx_len = 0;
    if (conn->rx_cap > 1024 * 1024) {  // do not keep a 25 MiB buffer around after a big message
        free(conn->rx);
        conn->rx = NULL;
        conn->rx_cap = 0;
    }
    return 0;
}

int cws_conn_writable(cws_conn *conn, struct lws *wsi) {
    if (conn->close_origin != CWS_CLOSE_NONE) return 0;
    cws_msg *msg = conn->tx_head;
    if (msg) {
        size_t remaining = msg->len - msg->sent;
        size_t chunk = remaining > CWS_FRAGMENT_BYTES ? CWS_FRAGMENT_BYTES : remaining;
        int first = msg->sent == 0;
        int last = msg->sent + chunk == msg->len;
        unsigned char *p = msg->buf + LWS_PRE + msg->sent;
        if (msg->flags & CWS_SEND_SINGLE_FRAME) {
            // One frame of any size, written in 64 KiB pieces as raw bytes: our own header goes
            // into the headroom before the payload (server frames are not masked).
            size_t n = chunk;
            if (first) {
                unsigned char head[10];
                size_t h = 0;
                head[h++] = (unsigned char)(0x80 | ((msg->flags & CWS_SEND_BINARY) ? 2 : 1));
                if (msg->len < 126) {
                    head[h++] = (unsigned char)msg->len;
                } else if (msg->len <= 0xffff) {
                    head[h++] = 126;
                    head[h++] = (unsigned char)(msg->len >> 8);
                    head[h++] = (unsigned char)msg->len;
                } else {
                    head[h++] = 127;
                    for (int shift = 56; shift >= 0; shift -= 8)
                        head[h++] = (unsigned char)((uint64_t)msg->len >> shift);
                }
                p -= h;
                memcpy(p, head, h);
                n += h;
            }
            if (lws_write(wsi, p, n, LWS_WRITE_RAW) < 0) return -1;
        } else {
            int kind = (msg->flags & CWS_SEND_BINARY) ? LWS_WRITE_BINARY : LWS_WRITE_TEXT;
            // The LWS_PRE bytes before a later fragment are already-sent payload: lws may
            // overwrite them with the frame header.
            if (lws_write(wsi, p, chunk, (enum lws_write_protocol)lws_write_ws_flags(kind, first, last)) < 0)
                return -1;
        }
        msg->sent += chunk;
        if (msg->sent == msg->len) {
            conn->tx_head = msg->next;
            if (!conn->tx_head) conn->tx_tail = NULL;
            free(msg);
        }
        if (conn->tx_head || conn->close_requested) lws_callback_on_writable(wsi);
        return 0;
    }
    if (conn->close_requested) {
        size_t n = strlen(conn->close_reason);
        record_close(conn, CWS_CLOSE_LOCAL, conn->close_code, conn->close_reason, n);
        lws_close_reason(wsi, (enum lws_close_status)conn->close_code,
                         (unsigned char *)conn->close_reason, n);
        return -1;
    }
    return 0;
}

void cws_conn_peer_close(cws_conn *conn, const void *in, size_t len) {
    const unsigned char *p = in;
    if (p && len >= 2)
        record_close(conn, CWS_CLOSE_PEER, (p[0] << 8) | p[1], (const char *)p + 2, len - 2);
    else
        record_close(conn, CWS_CLOSE_PEER, 0, "", 0);
}

void cws_conn_emit_closed(cws_loop *loop, cws_conn *conn) {
    cws_event ev = {0};
    ev.kind = CWS_EVENT_CLOSED;
    ev.conn_id = conn->id;
    ev.cert_sha256 = "";
    if (conn->close_origin == CWS_CLOSE_NONE) {
        ev.close_code = 0;
        ev.text = "connection lost";
    } else {
        ev.close_code = conn->final_code;
        ev.closed_by_peer = conn->close_origin == CWS_CLOSE_PEER;
        ev.text = conn->final_reason;
    }
    cws_emit(loop, &ev);
}

void cws_conn_release(cws_conn *conn) {
    free(conn->rx);
    conn->rx = NULL;
    conn->rx_cap = conn->rx_len = 0;
    conn->rx_active = 0;
    cws_msg *msg = conn->tx_head;
    while (msg) {
        cws_msg *next = msg->next;
        free(msg);
        msg = next;
    }
    conn->tx_head = conn->tx_tail = NULL;
}
