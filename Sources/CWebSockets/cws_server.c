// Loopback WebSocket server for the project's test gateway: one lws_context listening on
// 127.0.0.1, one service thread, connections named by ids that are never reused.
#include "cws_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cws_server {
    cws_loop loop;
    struct lws_context *ctx;  // created by open(), then owned by the service thread
    struct lws_protocols protocols[2];
    int port;
    cws_http_fn http_handler;
    void *http_user;
    // service thread only
    uint64_t next_id;
    cws_conn *conns;
};

static cws_conn *find_conn(cws_server *s, uint64_t id) {
    for (cws_conn *conn = s->conns; conn; conn = conn->next)
        if (conn->id == id) return conn;
    return NULL;
}

static void unlink_conn(cws_server *s, cws_conn *conn) {
    for (cws_conn **p = &s->conns; *p; p = &(*p)->next) {
        if (*p == conn) {
            *p = conn->next;
            return;
        }
    }
}

static void drain_commands(cws_server *s) {
    cws_cmd *cmd = cws_loop_take(&s->loop);
    while (cmd) {
        cws_cmd *next = cmd->next;
        cws_conn *conn = find_conn(s, cmd->conn_id);
        if (conn && conn->close_origin == CWS_CLOSE_NONE && !conn->close_requested) {
            if (cmd->type == CWS_CMD_SEND) {
                cws_conn_enqueue(conn, cmd->msg);
                cmd->msg = NULL;
            } else if (cmd->type == CWS_CMD_CLOSE) {
                cws_conn_request_close(conn, cmd->code, cmd->reason);
            } else if (cmd->type == CWS_CMD_PAUSE) {
                lws_rx_flow_control(conn->wsi, cmd->code ? 0 : 1);
            }
            lws_callback_on_writable(conn->wsi);
        }
        cws_cmd_free(cmd);
        cmd = next;
    }
}

/// LWS_CALLBACK_HTTP: a plain request; the owner's handler decides status and JSON body.
static int answer_http(cws_server *s, struct lws *wsi, const char *path) {
    const char *method = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0    ? "GET"
                         : lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0 ? "POST"
                                                                              : "OTHER";
    int has_query = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS) > 0;
    static __thread unsigned char body[LWS_PRE + CWS_HTTP_BODY_MAX];
    size_t body_len = 0;
    int status = s->http_handler(s->http_user, method, path ? path : "", has_query,
                                 (char *)body + LWS_PRE, CWS_HTTP_BODY_MAX, &body_len);
    if (status <= 0) return -2;  // not handled
    if (body_len > CWS_HTTP_BODY_MAX) body_len = CWS_HTTP_BODY_MAX;
    unsigned char head[LWS_PRE + 512];
    unsigned char *start = head + LWS_PRE, *p = start, *end = head + sizeof(head) - 1;
    if (lws_add_http_common_headers(wsi, (unsigned int)status, "application/json; charset=utf-8",
                                    body_len, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end) ||
        lws_finalize_http_header(wsi, &p, end))
        return -1;
    if (lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP_HEADERS) < 0) return -1;
    if (body_len && lws_write(wsi, body + LWS_PRE, body_len, LWS_WRITE_HTTP_FINAL) < 0) return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int server_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                           size_t len) {
    cws_server *s = lws_context_user(lws_get_context(wsi));
    if (!s) return 0;
    cws_conn *conn = NULL;
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED: {
        conn = calloc(1, sizeof(*conn));
        if (!conn) return -1;
        conn->id = ++s->next_id;
        conn->wsi = wsi;
        conn->next = s->conns;
        s->conns = conn;
        lws_set_opaque_user_data(wsi, conn);
        char path[1024] = "";
        if (lws_hdr_copy(wsi, path, sizeof(path), WSI_TOKEN_GET_URI) < 0) path[0] = 0;
        cws_event ev = {0};
        ev.kind = CWS_EVENT_CONNECTED;
        ev.conn_id = conn->id;
        ev.text = path;
        ev.cert_sha256 = "";
        cws_emit(&s->loop, &ev);
        return 0;
    }

    case LWS_CALLBACK_RECEIVE:
        conn = lws_get_opaque_user_data(wsi);
        return conn ? cws_conn_receive(&s->loop, conn, wsi, in, len) : 0;

    case LWS_CALLBACK_SERVER_WRITEABLE:
        conn = lws_get_opaque_user_data(wsi);
        return conn ? cws_conn_writable(conn, wsi) : 0;

    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        conn = lws_get_opaque_user_data(wsi);
        if (conn) cws_conn_peer_close(conn, in, len);
        return 0;

    case LWS_CALLBACK_CLOSED:
        conn = lws_get_opaque_user_data(wsi);
        if (!conn) return 0;
        lws_set_opaque_user_data(wsi, NULL);
        cws_conn_emit_closed(&s->loop, conn);
        unlink_conn(s, conn);
        cws_conn_release(conn);
        free(conn);
        return 0;

    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        drain_commands(s);
        return 0;

    case LWS_CALLBACK_HTTP:
        if (s->http_handler) {
            int rc = answer_http(s, wsi, in);
            if (rc != -2) return rc;
        }
        return lws_callback_http_dummy(wsi, reason, user, in, len);

    default:
        // Plain HTTP requests and the rest of the upgrade machinery.
        return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

static void *server_thread(void *arg) {
    cws_server *s = arg;
    cws_loop_run(&s->loop, s->ctx);
    cws_loop_retract_context(&s->loop);
    lws_context_destroy(s->ctx);  // events are muted by now
    s->ctx = NULL;
    while (s->conns) {  // connections lws did not report as closed
        cws_conn *conn = s->conns;
        s->conns = conn->next;
        cws_conn_release(conn);
        free(conn);
    }
    return NULL;
}

static void free_server(cws_server *s) {
    cws_loop_free_queue(&s->loop);
    pthread_mutex_destroy(&s->loop.mu);
    free(s);
}

cws_server *cws_server_open(const cws_server_config *cfg, cws_event_fn on_event, void *user,
                            char *err, size_t errlen) {
    if (!cfg || !on_event) {
        cws_set_error(err, errlen, "missing configuration or event callback");
        return NULL;
    }
    if (cfg->port < 0 || cfg->port > 65535 || cfg->max_message_bytes == 0) {
        cws_set_error(err, errlen, "invalid port or message limit");
        return NULL;
    }
    int use_tls = cfg->tls_cert_path != NULL;
    if (use_tls) {
        if (!cfg->tls_key_path) {
            cws_set_error(err, errlen, "TLS certificate given without a private key");
            return NULL;
        }
        if (access(cfg->tls_cert_path, R_OK) != 0 || access(cfg->tls_key_path, R_OK) != 0) {
            cws_set_error(err, errlen, "TLS certificate or key file is not readable");
            return NULL;
        }
    }
    cws_server *s = calloc(1, sizeof(*s));
    if (!s) {
        cws_set_error(err, errlen, "out of memory");
        return NULL;
    }
    cws_loop_init(&s->loop, on_event, user, cfg->max_message_bytes);
    s->http_handler = cfg->http_handler;
    s->http_user = cfg->http_user;
    s->protocols[0].name = "clawtalk-ws";
    s->protocols[0].callback = server_callback;
    s->protocols[0].rx_buffer_size = CWS_RX_BUFFER_BYTES;

    // No OS CA store: the server makes no client connections, and lws 4.1 would load (and, on
    // destroy, leak) the whole store into a client SSL_CTX for every TLS vhost.
    uint64_t options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS | LWS_SERVER_OPTION_DISABLE_IPV6 |
                       LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS;
    if (use_tls) options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.user = s;
    info.gid = -1;
    info.uid = -1;
    info.options = options;
    info.pt_serv_buf_size = CWS_RX_BUFFER_BYTES;
    s->ctx = cws_create_context(&info);
    if (!s->ctx) {
        cws_set_error(err, errlen, "could not create the libwebsockets context");
        free_server(s);
        return NULL;
    }

    struct lws_context_creation_info vinfo;
    memset(&vinfo, 0, sizeof(vinfo));
    vinfo.vhost_name = "clawtalk-test-gateway";
    vinfo.port = cfg->port;
    vinfo.iface = "127.0.0.1";
    vinfo.protocols = s->protocols;
    vinfo.options = options;
    vinfo.ssl_cert_filepath = cfg->tls_cert_path;
    vinfo.ssl_private_key_filepath = cfg->tls_key_path;
    struct lws_vhost *vhost = lws_create_vhost(s->ctx, &vinfo);
    if (!vhost) {
        cws_set_error(err, errlen, "could not listen on 127.0.0.1:%d%s", cfg->port,
                      use_tls ? " (or the TLS certificate/key was rejected)" : "");
        lws_context_destroy(s->ctx);
        free_server(s);
        return NULL;
    }
    s->port = lws_get_vhost_listen_port(vhost);
    if (cws_loop_publish_context(&s->loop, s->ctx) != 0 ||
        pthread_create(&s->loop.thread, NULL, server_thread, s) != 0) {
        cws_set_error(err, errlen, "could not start the service thread");
        cws_loop_retract_context(&s->loop);
        lws_context_destroy(s->ctx);
        free_server(s);
        return NULL;
    }
    s->loop.thread_started = 1;
    return s;
}

int cws_server_port(const cws_server *server) { return server ? server->port : 0; }

int cws_server_send(cws_server *server, uint64_t conn_id, const void *data, size_t len, int flags) {
    if (!server || (!data && len)) return CWS_ERR_ARGUMENT;
    cws_cmd *cmd = cws_cmd_new_send(conn_id, data, len, flags);
    if (!cmd) return CWS_ERR_NO_MEMORY;
    return cws_loop_post(&server->loop, cmd);
}

int cws_server_send_text(cws_server *server, uint64_t conn_id, const char *data, size_t len) {
    return cws_server_send(server, conn_id, data, len, 0);
}

int cws_server_close_conn(cws_server *server, uint64_t conn_id, int code, const char *reason) {
    if (!server || !cws_close_code_is_sendable(code)) return CWS_ERR_ARGUMENT;
    if (reason && strlen(reason) > CWS_REASON_MAX - 1) return CWS_ERR_ARGUMENT;
    cws_cmd *cmd = cws_cmd_new_close(conn_id, code, reason);
    if (!cmd) return CWS_ERR_NO_MEMORY;
    return cws_loop_post(&server->loop, cmd);
}

int cws_server_pause_reading(cws_server *server, uint64_t conn_id, int paused) {
    if (!server) return CWS_ERR_ARGUMENT;
    cws_cmd *cmd = cws_cmd_new_close(conn_id, paused ? 1 : 0, NULL);
    if (!cmd) return CWS_ERR_NO_MEMORY;
    cmd->type = CWS_CMD_PAUSE;
    return cws_loop_post(&server->loop, cmd);
}

void cws_server_destroy(cws_server *server) {
    if (!server) return;
    cws_loop_stop_and_join(&server->loop);
    free_server(server);
}
