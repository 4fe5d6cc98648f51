// Internal to CWebSockets: the service loop shared by client and server, and the server's
// per-connection state.
#pragma once

#include "CWebSockets.h"

#include <libwebsockets.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <stdatomic.h>

#define CWS_REASON_MAX 124            // close reason: 123 bytes on the wire + NUL
#define CWS_FINGERPRINT_HEX 65        // 64 hex + NUL
#define CWS_FRAGMENT_BYTES (64 * 1024)
#define CWS_RX_BUFFER_BYTES (64 * 1024)

/// One outgoing message: LWS_PRE bytes of headroom, then the payload.
typedef struct cws_msg {
    struct cws_msg *next;
    size_t len;
    size_t sent;
    int flags;
    unsigned char buf[];  // LWS_PRE + len
} cws_msg;

enum { CWS_CMD_SEND = 1, CWS_CMD_CLOSE = 2, CWS_CMD_PAUSE = 3 };

/// A request from another thread to the service thread.
typedef struct cws_cmd {
    struct cws_cmd *next;
    int type;
    uint64_t conn_id;
    cws_msg *msg;  // SEND
    int code;      // CLOSE; PAUSE: 1 to stop reading, 0 to resume
    char reason[CWS_REASON_MAX];
} cws_cmd;

enum { CWS_CLOSE_NONE = 0, CWS_CLOSE_LOCAL = 1, CWS_CLOSE_PEER = 2 };

/// One established server-side WebSocket connection (lws ws role). Service thread only.
typedef struct cws_conn {
    struct cws_conn *next;  // server: list of live connections
    struct lws *wsi;
    uint64_t id;
    // receive: the message being reassembled
    unsigned char *rx;
    size_t rx_len;
    size_t rx_cap;
    int rx_binary;
    int rx_active;
    // send queue
    cws_msg *tx_head;
    cws_msg *tx_tail;
    // close: requested by the owner, then who closed first and with what
    int close_requested;
    int close_code;
    char close_reason[CWS_REASON_MAX];
    int close_origin;
    int final_code;
    char final_reason[CWS_REASON_MAX];
} cws_conn;

/// The service thread, its command queue and the event sink.
typedef struct cws_loop {
    pthread_mutex_t mu;
    pthread_t thread;
    int thread_started;
    struct lws_context *ctx;  // set/cleared under mu so other threads may lws_cancel_service()
    cws_cmd *q_head;          // under mu
    cws_cmd *q_tail;          // under mu
    int stop;                 // under mu
    atomic_int muted;         // set by destroy: no more events
    cws_event_fn fn;
    void *user;
    size_t max_message_bytes;
} cws_loop;

// ---- loop (cws_loop.c) ----
void cws_loop_init(cws_loop *loop, cws_event_fn fn, void *user, size_t max_message_bytes);
/// Queues a command and wakes the loop; frees it and returns CWS_ERR_NOT_OPEN when stopping.
int cws_loop_post(cws_loop *loop, cws_cmd *cmd);
/// Detaches every queued command (service thread).
cws_cmd *cws_loop_take(cws_loop *loop);
int cws_loop_should_stop(cws_loop *loop);
/// Publishes the context so other threads can wake it: 0, or -1 when stop was already asked.
int cws_loop_publish_context(cws_loop *loop, struct lws_context *ctx);
/// Retracts the context (before lws_context_destroy).
void cws_loop_retract_context(cws_loop *loop);
/// Mutes events, asks the thread to stop and joins it (unless called on the thread itself).
void cws_loop_stop_and_join(cws_loop *loop);
/// Runs lws_service until stop is requested.
void cws_loop_run(cws_loop *loop, struct lws_context *ctx);
void cws_loop_free_queue(cws_loop *loop);
void cws_emit(cws_loop *loop, const cws_event *ev);

// ---- commands ----
cws_msg *cws_msg_new(const void *data, size_t len, int flags);
cws_cmd *cws_cmd_new_send(uint64_t conn_id, const void *data, size_t len, int flags);
cws_cmd *cws_cmd_new_close(uint64_t conn_id, int code, const char *reason);
void cws_cmd_free(cws_cmd *cmd);
/// 1 for a close code an endpoint may send (1000-1003, 1007-1014, 3000-4999).
int cws_close_code_is_sendable(int code);

// ---- connection (cws_server_conn.c) ----
void cws_conn_enqueue(cws_conn *conn, cws_msg *msg);
void cws_conn_request_close(cws_conn *conn, int code, const char *reason);
/// LWS_CALLBACK_(CLIENT_)RECEIVE: 0, or -1 after starting a 1009 close.
int cws_conn_receive(cws_loop *loop, cws_conn *conn, struct lws *wsi, const void *in, size_t len);
/// LWS_CALLBACK_(CLIENT|SERVER)_WRITEABLE: 0, or -1 to close.
int cws_conn_writable(cws_conn *conn, struct lws *wsi);
/// LWS_CALLBACK_WS_PEER_INITIATED_CLOSE.
void cws_conn_peer_close(cws_conn *conn, const void *in, size_t len);
/// Emits CLOSED with what is known about how the connection ended.
void cws_conn_emit_closed(cws_loop *loop, cws_conn *conn);
/// Frees buffers and the send queue.
void cws_conn_release(cws_conn *conn);

// ---- TLS helpers ----
/// SHA-256 of the certificate's DER encoding as 64 lowercase hex; "" on failure.
void cws_x509_sha256_hex(X509 *cert, char out[CWS_FINGERPRINT_HEX]);

/// lws_create_context(), serialised process-wide (see cws_context.c).
struct lws_context *cws_create_context(const struct lws_context_creation_info *info);

/// snprintf into an optional error buffer.
void cws_set_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
