// WebSocket client: one lws_context, one RAW connection, one service thread.
//
// Event contract: exactly one of
//   ERROR                       (never connected), or
//   CONNECTED, MESSAGE*, CLOSED (connected, then gone),
// with PONG possible between CONNECTED and CLOSED.
//
// Layers: lws RAW connection (DNS, TCP, loop, timers) -> cws_client_tls.c (OpenSSL over memory
// BIOs, certificate pinning) -> cws_client_wire.c (RFC 6455). See cws_client_internal.h for why.
#include "cws_client_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

// ---- events -----------------------------------------------------------------------------------

static void emit_error(cws_client *c, cws_error_kind kind, const char *message) {
    atomic_store(&c->state, CLIENT_DONE);
    c->phase = PHASE_DONE;
    if (c->terminal) return;
    c->terminal = 1;
    cws_event ev = {0};
    ev.kind = CWS_EVENT_ERROR;
    ev.conn_id = 1;
    ev.error_kind = kind;
    ev.text = message;
    ev.cert_sha256 = c->observed;
    cws_emit(&c->loop, &ev);
}

static void emit_closed(cws_client *c) {
    atomic_store(&c->state, CLIENT_DONE);
    c->phase = PHASE_DONE;
    if (c->terminal) return;
    c->terminal = 1;
    cws_event ev = {0};
    ev.kind = CWS_EVENT_CLOSED;
    ev.conn_id = 1;
    ev.cert_sha256 = "";
    if (c->close_origin == CWS_CLOSE_NONE) {
        ev.text = "connection lost";
    } else {
        ev.close_code = c->final_code;
        ev.closed_by_peer = c->close_origin == CWS_CLOSE_PEER;
        ev.text = c->final_reason;
    }
    cws_emit(&c->loop, &ev);
}

void cws_client_fail(cws_client *c, const char *why) {
    char message[512];
    if (c->pin_mismatch) {
        snprintf(message, sizeof(message), "pin mismatch: expected %s, got %s", c->pin,
                 c->observed[0] ? c->observed : "no certificate");
        emit_error(c, CWS_ERROR_PIN_MISMATCH, message);
        return;
    }
    if (c->verify_error[0]) {
        snprintf(message, sizeof(message), "TLS certificate of %s:%d not trusted: %s", c->host,
                 c->port, c->verify_error);
        emit_error(c, CWS_ERROR_TLS_UNTRUSTED, message);
        return;
    }
    snprintf(message, sizeof(message), "connection to %s:%d failed: %s", c->host, c->port,
             why && *why ? why : "unknown error");
    emit_error(c, CWS_ERROR_CONNECT, message);
}

void cws_client_did_open(cws_client *c, struct lws *wsi) {
    if (c->terminal) return;
    c->phase = PHASE_OPEN;
    lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
    atomic_store(&c->state, CLIENT_OPEN);
    c->last_rx_ms = cws_now_ms();
    if (c->ping_interval_s) lws_set_timer_usecs(wsi, (lws_usec_t)c->ping_interval_s * 1000000);
    cws_event ev = {0};
    ev.kind = CWS_EVENT_CONNECTED;
    ev.conn_id = 1;
    ev.text = "";
    ev.cert_sha256 = c->observed;
    cws_emit(&c->loop, &ev);
}

void cws_client_emit_message(cws_client *c, const unsigned char *data, size_t len, int binary) {
    cws_event ev = {0};
    ev.kind = CWS_EVENT_MESSAGE;
    ev.conn_id = 1;
    ev.data = data;
    ev.len = len;
    ev.is_binary = binary;
    ev.text = "";
    ev.cert_sha256 = "";
    cws_emit(&c->loop, &ev);
}

void cws_client_emit_pong(cws_client *c) {
    cws_event ev = {0};
    ev.kind = CWS_EVENT_PONG;
    ev.conn_id = 1;
    ev.text = "";
    ev.cert_sha256 = "";
    cws_emit(&c->loop, &ev);
}

// ---- transport ---------------------------------------------------------------------------------

int cws_client_transport_ready(cws_client *c, struct lws *wsi) {
    if (c->terminal) return -1;  // closed by the owner meanwhile
    if (c->ssl) {
        char fingerprint[CWS_FINGERPRINT_HEX] = "";
        X509 *peer = SSL_get1_peer_certificate(c->ssl);
        cws_x509_sha256_hex(peer, fingerprint);
        X509_free(peer);
        if (fingerprint[0]) memcpy(c->observed, fingerprint, sizeof(fingerprint));
        if (c->has_pin && strcmp(c->observed, c->pin) != 0) {
            c->pin_mismatch = 1;  // belt and braces: the verify callback refuses it first
            cws_client_fail(c, NULL);
            return -1;
        }
    }
    if (cws_wire_prepare_handshake(c) != 0) {
        cws_client_fail(c, "could not prepare the upgrade request");
        return -1;
    }
    c->phase = PHASE_HANDSHAKE;
    lws_callback_on_writable(wsi);
    return 0;
}

/// TCP is up: start TLS, or the upgrade right away for ws://.
static int on_tcp_connected(cws_client *c, struct lws *wsi) {
    if (c->terminal) return -1;
    c->wsi = wsi;
    lws_set_timeout(wsi, PENDING_TIMEOUT_AWAITING_SERVER_RESPONSE, 20);
    return c->use_tls ? cws_tls_start(c, wsi) : cws_client_transport_ready(c, wsi);
}

// ---- commands ---------------------------------------------------------------------------------

static void drain_commands(cws_client *c) {
    cws_cmd *cmd = cws_loop_take(&c->loop);
    while (cmd) {
        cws_cmd *next = cmd->next;
        int open = c->phase == PHASE_OPEN && c->wsi;
        if (cmd->type == CWS_CMD_SEND) {
            if (open && !c->close_requested && !c->close_now && !c->close_sent) {
                cws_msg *msg = cmd->msg;
                cmd->msg = NULL;
                msg->next = NULL;
                if (c->tx_tail)
                    c->tx_tail->next = msg;
                else
                    c->tx_head = msg;
                c->tx_tail = msg;
                lws_callback_on_writable(c->wsi);
            }
        } else if (cmd->type == CWS_CMD_CLOSE) {
            if (open) {
                cws_wire_start_close(c, c->wsi, cmd->code, cmd->reason, 0);
            } else if (!c->terminal && c->phase != PHASE_CLOSING) {
                // Still connecting: abandon the attempt and report the owner's close.
                c->close_origin = CWS_CLOSE_LOCAL;
                c->final_code = cmd->code;
                snprintf(c->final_reason, sizeof(c->final_reason), "%s", cmd->reason);
                emit_closed(c);
                if (c->wsi) lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
            }
        }
        cws_cmd_free(cmd);
        cmd = next;
    }
}

// ---- keepalive --------------------------------------------------------------------------------

static int on_timer(cws_client *c, struct lws *wsi) {
    if (c->phase != PHASE_OPEN) return 0;
    int64_t idle_ms = cws_now_ms() - c->last_rx_ms;
    if (idle_ms >= (int64_t)c->ping_interval_s * 3000) {
        if (c->close_origin == CWS_CLOSE_NONE) {
            c->close_origin = CWS_CLOSE_LOCAL;
            c->final_code = 0;
            snprintf(c->final_reason, sizeof(c->final_reason),
                     "keepalive timeout: nothing from the peer for %lld s",
                     (long long)(idle_ms / 1000));
        }
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        return 0;
    }
    c->ping_pending = 1;
    lws_callback_on_writable(wsi);
    lws_set_timer_usecs(wsi, (lws_usec_t)c->ping_interval_s * 1000000);
    return 0;
}

// ---- writing ----------------------------------------------------------------------------------

/// The socket can take bytes. What it did not take last time goes first; then frames follow one
/// by one until the socket refuses some (the rest waits in the output buffer for the next turn)
/// or nothing is left. A turn writes at most 4x the socket's send buffer (and at least 16 MiB),
/// so a busy send queue cannot keep the thread from reading for long, yet a turn always offers
/// more than the socket can hold: a peer that stops reading makes the writes come up short.
static int on_writable(cws_client *c, struct lws *wsi) {
    if (cws_out_flush(c, wsi) != 0) return -1;
    if (cws_out_pending(c)) return 0;  // still full: the flush asked for the next turn
    if (c->ssl && !c->tls_ready) return 0;
    int sndbuf = 0;
    socklen_t optlen = sizeof(sndbuf);
    getsockopt(lws_get_socket_fd(wsi), SOL_SOCKET, SO_SNDBUF, &sndbuf, &optlen);
    size_t budget = sndbuf > 0 ? 4 * (size_t)sndbuf : 0;
    if (budget < 16 * 1024 * 1024) budget = 16 * 1024 * 1024;
    size_t frames = budget / CWS_FRAGMENT_BYTES;
    while (frames-- && !cws_out_pending(c)) {
        int rc = cws_wire_writable(c, wsi);
        if (rc < 0) return -1;
        if (rc == 0) return 0;
    }
    if (!cws_out_pending(c) && cws_wire_wants_to_write(c)) lws_callback_on_writable(wsi);
    return 0;
}

// ---- lws callback -----------------------------------------------------------------------------

static int client_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                           size_t len) {
    (void)user;
    cws_client *c = lws_context_user(lws_get_context(wsi));
    if (!c) return 0;
    switch (reason) {
    case LWS_CALLBACK_RAW_CONNECTED:
        return on_tcp_connected(c, wsi);

    case LWS_CALLBACK_RAW_RX:
        if (wsi != c->wsi || c->terminal) return 0;
        lws_validity_confirmed(wsi);  // traffic: lws must not consider the link idle
        return c->ssl ? cws_tls_receive(c, wsi, in, len) : cws_wire_receive(c, wsi, in, len);

    case LWS_CALLBACK_RAW_WRITEABLE:
        if (wsi != c->wsi || c->terminal) return 0;
        return on_writable(c, wsi);

    case LWS_CALLBACK_TIMER:
        if (wsi != c->wsi || c->terminal) return 0;
        return on_timer(c, wsi);

    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        cws_client_fail(c, in ? (const char *)in : NULL);
        if (wsi == c->wsi) c->wsi = NULL;
        return 0;

    case LWS_CALLBACK_RAW_CLOSE:
    case LWS_CALLBACK_WSI_DESTROY:
        if (c->wsi && wsi != c->wsi) return 0;
        if (c->phase == PHASE_OPEN || c->phase == PHASE_CLOSING)
            emit_closed(c);
        else
            cws_client_fail(c, "connection closed before the upgrade completed");
        c->wsi = NULL;
        return 0;

    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        drain_commands(c);
        return 0;

    default:
        return 0;
    }
}

// ---- thread -----------------------------------------------------------------------------------

static void *client_thread(void *arg) {
    cws_client *c = arg;
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = c->protocols;
    info.user = c;
    info.gid = -1;
    info.uid = -1;
    info.options = 0;  // no lws TLS: the client runs OpenSSL itself
    info.pt_serv_buf_size = CWS_RX_BUFFER_BYTES;  // socket reads of up to 64 KiB
    struct lws_context *ctx = cws_create_context(&info);
    if (!ctx) {
        emit_error(c, CWS_ERROR_CONNECT, "could not create the libwebsockets context");
        return NULL;
    }
    if (cws_loop_publish_context(&c->loop, ctx) != 0) {
        lws_context_destroy(ctx);
        return NULL;
    }

    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof(ci));
    ci.context = ctx;
    ci.address = c->host;
    ci.port = c->port;
    ci.path = c->path;
    ci.host = c->host;
    ci.method = "RAW";  // plain TCP from lws; TLS and RFC 6455 are ours
    ci.local_protocol_name = c->protocols[0].name;
    ci.protocol = c->protocols[0].name;
    // lws's default policy hangs a connection up after ~5 minutes without "validity"; liveness
    // is ours (pings every ping_interval_s, drop after 3x silence), so push lws's far away.
    c->idle_policy.secs_since_valid_ping = 0xffff;
    c->idle_policy.secs_since_valid_hangup = 0xffff;
    ci.retry_and_idle_policy = &c->idle_policy;
    struct lws *wsi = lws_client_connect_via_info(&ci);
    if (!wsi)
        cws_client_fail(c, "could not start the connection");
    else if (!c->terminal)
        c->wsi = wsi;

    cws_loop_run(&c->loop, ctx);

    cws_loop_retract_context(&c->loop);
    lws_context_destroy(ctx);  // events are muted by now
    cws_wire_release(c);
    cws_tls_release(c);
    cws_out_release(c);
    return NULL;
}

// ---- public API -------------------------------------------------------------------------------

static int is_lower_hex64(const char *s) {
    if (!s || strlen(s) != 64) return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return 0;
    return 1;
}

static int has_control_or_space(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= 0x20 || *p == 0x7f) return 1;
    return 0;
}

static void free_client(cws_client *c) {
    cws_loop_free_queue(&c->loop);
    pthread_mutex_destroy(&c->loop.mu);
    cws_wire_release(c);
    cws_tls_release(c);
    cws_out_release(c);
    free(c->host);
    free(c->ca_file);
    free(c->host_header);
    free(c->path);
    free(c);
}

cws_client *cws_client_open(const cws_client_config *cfg, cws_event_fn on_event, void *user,
                            char *err, size_t errlen) {
    if (!cfg || !on_event) {
        cws_set_error(err, errlen, "missing configuration or event callback");
        return NULL;
    }
    if (!cfg->host || !*cfg->host || has_control_or_space(cfg->host) || cfg->port < 1 ||
        cfg->port > 65535) {
        cws_set_error(err, errlen, "invalid host or port");
        return NULL;
    }
    if (cfg->path && (cfg->path[0] != '/' || has_control_or_space(cfg->path))) {
        cws_set_error(err, errlen, "path must start with '/' and contain no spaces");
        return NULL;
    }
    if (cfg->max_message_bytes == 0) {
        cws_set_error(err, errlen, "max_message_bytes must be positive");
        return NULL;
    }
    if (cfg->pin_sha256_hex && !is_lower_hex64(cfg->pin_sha256_hex)) {
        cws_set_error(err, errlen, "pin must be 64 lowercase hex characters");
        return NULL;
    }
    cws_client *c = calloc(1, sizeof(*c));
    if (!c) {
        cws_set_error(err, errlen, "out of memory");
        return NULL;
    }
    cws_loop_init(&c->loop, on_event, user, cfg->max_message_bytes);
    atomic_init(&c->state, CLIENT_CONNECTING);
    atomic_init(&c->send_stalls, 0);
    c->phase = PHASE_CONNECTING;
    c->use_tls = cfg->use_tls ? 1 : 0;
    c->port = cfg->port;
    c->ping_interval_s = cfg->ping_interval_s > 20000 ? 20000 : cfg->ping_interval_s;
    c->host = strdup(cfg->host);
    c->path = strdup(cfg->path ? cfg->path : "/");
    c->ca_file = cfg->ca_file ? strdup(cfg->ca_file) : NULL;
    c->frame = malloc(14 + CWS_FRAGMENT_BYTES);
    // Host header: brackets around IPv6 literals, the port unless it is the scheme's default.
    int v6 = strchr(cfg->host, ':') != NULL;
    int default_port = cfg->port == (c->use_tls ? 443 : 80);
    size_t header_len = strlen(cfg->host) + 16;
    c->host_header = malloc(header_len);
    if (c->host_header)
        snprintf(c->host_header, header_len, default_port ? "%s%s%s" : "%s%s%s:%d", v6 ? "[" : "",
                 cfg->host, v6 ? "]" : "", cfg->port);
    if (cfg->pin_sha256_hex) {
        c->has_pin = 1;
        memcpy(c->pin, cfg->pin_sha256_hex, 65);
    }
    c->protocols[0].name = "clawtalk-ws-client";
    c->protocols[0].callback = client_callback;
    c->protocols[0].rx_buffer_size = CWS_RX_BUFFER_BYTES;
    if (!c->host || !c->path || !c->host_header || !c->frame || (cfg->ca_file && !c->ca_file)) {
        cws_set_error(err, errlen, "out of memory");
        free_client(c);
        return NULL;
    }
    if (pthread_create(&c->loop.thread, NULL, client_thread, c) != 0) {
        cws_set_error(err, errlen, "could not start the service thread");
        free_client(c);
        return NULL;
    }
    c->loop.thread_started = 1;
    return c;
}

int cws_client_send(cws_client *client, const void *data, size_t len, int flags) {
    if (!client || (!data && len)) return CWS_ERR_ARGUMENT;
    if (atomic_load(&client->state) != CLIENT_OPEN) return CWS_ERR_NOT_OPEN;
    cws_cmd *cmd = cws_cmd_new_send(1, data, len, flags);
    if (!cmd) return CWS_ERR_NO_MEMORY;
    return cws_loop_post(&client->loop, cmd);
}

int cws_client_send_text(cws_client *client, const char *data, size_t len) {
    return cws_client_send(client, data, len, 0);
}

int cws_client_close(cws_client *client, int code, const char *reason) {
    if (!client || !cws_close_code_is_sendable(code)) return CWS_ERR_ARGUMENT;
    if (reason && strlen(reason) > CWS_REASON_MAX - 1) return CWS_ERR_ARGUMENT;
    if (atomic_load(&client->state) == CLIENT_DONE) return CWS_ERR_NOT_OPEN;
    cws_cmd *cmd = cws_cmd_new_close(1, code, reason);
    if (!cmd) return CWS_ERR_NO_MEMORY;
    return cws_loop_post(&client->loop, cmd);
}

uint64_t cws_client_send_stalls(const cws_client *client) {
    return client ? (uint64_t)atomic_load(&((cws_client *)client)->send_stalls) : 0;
}

void cws_client_destroy(cws_client *client) {
    if (!client) return;
    cws_loop_stop_and_join(&client->loop);
    free_client(client);
}
