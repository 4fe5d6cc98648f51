// CWebSockets: a WebSocket client and a loopback test server over libwebsockets 4.1.
//
// Layers: the server uses libwebsockets' ws role. The client uses lws only for DNS, TCP, timers
// and the loop (a RAW connection) and does TLS (OpenSSL over memory BIOs, leaf pinning) and
// RFC 6455 itself, because lws 4.1's ws client rewrites close codes 1012-1014 to 1002 and its
// TLS client breaks when another TLS context is created mid-handshake.
//
// Threading model (the reason this shim exists):
//   * Every cws_client / cws_server owns one lws_context and ONE service thread that runs
//     lws_service(). Every libwebsockets call happens on that thread.
//   * Other threads talk to it only through the functions below: they copy their data into a
//     mutex-protected command queue and wake the loop with lws_cancel_service().
//   * Events reach the owner through `on_event`, called ON THE SERVICE THREAD. Pointers inside
//     the event are valid only during the call: copy what you need and return at once (never
//     block, never call cws_*_destroy from inside the callback).
//   * cws_*_destroy() stops and joins the thread; no callback runs after it returns.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Return codes of the send/close functions.
enum {
    CWS_OK = 0,
    CWS_ERR_ARGUMENT = -1,  ///< NULL handle, bad code, reason too long, ...
    CWS_ERR_NOT_OPEN = -2,  ///< client not connected yet, already closed, or being destroyed
    CWS_ERR_NO_MEMORY = -3,
};

/// Flags for cws_client_send / cws_server_send.
enum {
    CWS_SEND_BINARY = 1 << 0,        ///< binary opcode instead of text
    CWS_SEND_SINGLE_FRAME = 1 << 1,  ///< server only: one frame for the whole message, as Node's
                                     ///< `ws` sends it (default: 64 KiB fragments; the client
                                     ///< always fragments)
};

/// What happened.
typedef enum cws_event_kind {
    /// Client: WebSocket handshake done (`cert_sha256` holds the leaf fingerprint over wss).
    /// Server: a new connection was upgraded (`conn_id` names it, `text` is the request path
    /// without the query).
    CWS_EVENT_CONNECTED = 1,
    /// One complete message (fragments reassembled): `data`/`len`, `is_binary`.
    CWS_EVENT_MESSAGE = 2,
    /// The connection is gone (after CONNECTED). `close_code` (0 = none known), `text` = reason,
    /// `closed_by_peer` says whether the peer sent the close frame.
    CWS_EVENT_CLOSED = 3,
    /// Client only: the connection could not be established (`error_kind`, `text`).
    CWS_EVENT_ERROR = 4,
    /// Client only: a pong arrived (answer to the keepalive ping).
    CWS_EVENT_PONG = 5,
} cws_event_kind;

/// Why a client connection failed (CWS_EVENT_ERROR).
typedef enum cws_error_kind {
    CWS_ERROR_NONE = 0,
    CWS_ERROR_CONNECT = 1,       ///< resolve/refused/handshake rejected/timeout/setup failure
    CWS_ERROR_TLS_UNTRUSTED = 2, ///< no pin, and the system trust store rejected the certificate
    CWS_ERROR_PIN_MISMATCH = 3,  ///< the leaf certificate's SHA-256 is not the pinned one
} cws_error_kind;

/// One event. Strings are NUL-terminated and never NULL; all pointers die when the callback returns.
typedef struct cws_event {
    cws_event_kind kind;
    uint64_t conn_id;        ///< server: connection id (>= 1); client: always 1
    const uint8_t *data;     ///< MESSAGE payload (may be NULL when len == 0)
    size_t len;
    int is_binary;           ///< MESSAGE: 1 for a binary message
    int close_code;          ///< CLOSED: wire close code, or the local one; 0 when none is known
    int closed_by_peer;      ///< CLOSED: 1 when the peer sent the close frame first
    cws_error_kind error_kind;  ///< ERROR only
    const char *text;        ///< CLOSED: reason; ERROR: message; server CONNECTED: path; else ""
    const char *cert_sha256; ///< client over wss: 64 lowercase hex of the DER leaf cert, else ""
} cws_event;

/// Event sink, called on the service thread.
typedef void (*cws_event_fn)(void *user, const cws_event *event);

// ---------------------------------------------------------------------------------------------
// Client

typedef struct cws_client cws_client;

/// Where and how a client connects. Strings are copied by cws_client_open.
typedef struct cws_client_config {
    int use_tls;                 ///< 1 for wss://
    const char *host;            ///< DNS name or IP literal (IPv6 without brackets)
    int port;                    ///< 1...65535
    const char *path;            ///< request path incl. context path and query, e.g. "/openclaw-gw"
    size_t max_message_bytes;    ///< inbound limit; a larger message closes with 1009
    unsigned ping_interval_s;    ///< send a ping every this many seconds (0 = never); drop the
                                 ///< connection after 3x this long without any byte from the peer
    const char *pin_sha256_hex;  ///< NULL, or 64 lowercase hex: accept exactly this leaf cert
    const char *ca_file;         ///< NULL (system trust store), or a PEM file of trust anchors
                                 ///< to use instead; ignored with a pin
} cws_client_config;

/// Starts connecting on a new service thread and returns at once. The outcome arrives as
/// CONNECTED or ERROR; after CONNECTED exactly one CLOSED follows. NULL + `err` on bad input.
cws_client *cws_client_open(const cws_client_config *cfg, cws_event_fn on_event, void *user,
                            char *err, size_t errlen);

/// Queues a copy of a text message (sent in 64 KiB fragments). CWS_ERR_NOT_OPEN before CONNECTED.
int cws_client_send_text(cws_client *client, const char *data, size_t len);

/// Queues a copy of a message with CWS_SEND_* flags.
int cws_client_send(cws_client *client, const void *data, size_t len, int flags);

/// Graceful close after the queued messages (code 1000 or 3000...4999, reason <= 123 bytes).
/// Before CONNECTED it aborts the attempt and reports CLOSED with this code.
int cws_client_close(cws_client *client, int code, const char *reason);

/// How many times the socket took less than the client offered (a short send or EAGAIN); the
/// unsent rest was kept and sent later. Any thread.
uint64_t cws_client_send_stalls(const cws_client *client);

/// Stops the thread at once (no close handshake), frees everything. No callback after return.
void cws_client_destroy(cws_client *client);

// ---------------------------------------------------------------------------------------------
// Server (the project's loopback test gateway)

typedef struct cws_server cws_server;

/// Largest plain-HTTP response body the server sends (cws_http_fn's `body` capacity).
#define CWS_HTTP_BODY_MAX (32 * 1024)

/// Answers one plain HTTP request (not a WebSocket upgrade), ON THE SERVICE THREAD: never
/// block. `method` is "GET", "POST" or "OTHER"; `path` excludes the query, `has_query` says
/// whether there was one. Write up to `body_cap` bytes of JSON into `body`, set `*body_len`
/// and return the status code; return 0 to fall back to libwebsockets' default answer.
typedef int (*cws_http_fn)(void *user, const char *method, const char *path, int has_query,
                           char *body, size_t body_cap, size_t *body_len);

/// Listening options. Strings are only read during cws_server_open.
typedef struct cws_server_config {
    int port;                    ///< 0 = let the kernel pick a free port
    const char *tls_cert_path;   ///< PEM certificate for wss://, or NULL for ws://
    const char *tls_key_path;    ///< PEM private key (needed with tls_cert_path)
    size_t max_message_bytes;    ///< inbound limit per message; larger closes with 1009
    cws_http_fn http_handler;    ///< NULL, or answers plain HTTP requests (JSON, no-store)
    void *http_user;             ///< passed to http_handler
} cws_server_config;

/// Listens on 127.0.0.1 only and starts the service thread. NULL + `err` on failure.
cws_server *cws_server_open(const cws_server_config *cfg, cws_event_fn on_event, void *user,
                            char *err, size_t errlen);

/// The port actually listened on.
int cws_server_port(const cws_server *server);

/// Queues a copy of a text message for a connection (unknown ids are dropped).
int cws_server_send_text(cws_server *server, uint64_t conn_id, const char *data, size_t len);

/// Queues a copy of a message with CWS_SEND_* flags.
int cws_server_send(cws_server *server, uint64_t conn_id, const void *data, size_t len, int flags);

/// Stops (`paused` = 1) or resumes (0) reading from a connection, so its client's socket fills
/// up: a test of the client's handling of short writes.
int cws_server_pause_reading(cws_server *server, uint64_t conn_id, int paused);

/// Graceful close of one connection after its queued messages.
int cws_server_close_conn(cws_server *server, uint64_t conn_id, int code, const char *reason);

/// Stops listening, drops every connection without a close handshake, frees everything.
void cws_server_destroy(cws_server *server);

// ---------------------------------------------------------------------------------------------
// One blocking HTTP(S) exchange (join-URL redemption). No service thread: every call blocks
// the caller (bounded by timeout_ms per step) and must come from one thread, which gets
// SIGPIPE blocked.

typedef struct cws_https cws_https;

/// Where to connect. Strings are only read during cws_https_connect.
typedef struct cws_https_config {
    int use_tls;                 ///< 1 for https://
    const char *host;            ///< DNS name or IP literal (IPv6 without brackets)
    int port;                    ///< 1...65535
    const char *pin_sha256_hex;  ///< NULL, or 64 lowercase hex: accept exactly this leaf cert
    const char *ca_file;         ///< NULL (system trust store), or a PEM file of trust anchors
    int timeout_ms;              ///< connect timeout and per-read/write timeout
} cws_https_config;

/// Connects (and completes the TLS handshake). NULL on failure with `*kind` and `err` set:
/// CWS_ERROR_CONNECT, CWS_ERROR_TLS_UNTRUSTED or CWS_ERROR_PIN_MISMATCH.
cws_https *cws_https_connect(const cws_https_config *cfg, cws_error_kind *kind, char *err,
                             size_t errlen);

/// Writes all of `data`; the byte count, or -1.
long cws_https_write(cws_https *h, const void *data, size_t len);

/// Reads up to `cap` bytes: the count, 0 at the end of the stream, -1 on error or timeout.
long cws_https_read(cws_https *h, void *buf, size_t cap);

/// The peer's leaf certificate SHA-256 (64 lowercase hex), "" without TLS.
const char *cws_https_cert_sha256(const cws_https *h);

/// Closes the connection and frees it.
void cws_https_close(cws_https *h);

#ifdef __cplusplus
}
#endif
