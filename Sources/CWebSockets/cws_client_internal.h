// Internal to CWebSockets: the client's state, shared by cws_client.c (life cycle, lws
// callbacks, public API) and cws_client_wire.c (RFC 6455 handshake and framing).
//
// Why the client speaks RFC 6455 and drives TLS itself:
//   * libwebsockets 4.1's ws client parser rewrites close codes 1012-1014 (service restart, try
//     again later, bad gateway) to 1002 before user code sees them, and the gateway protocol
//     gives 1012 and 1013 their own meaning;
//   * its RAW client connections do not do TLS, and its TLS keeps the SSL*->connection mapping
//     in an OpenSSL ex-data index that every new TLS context re-allocates (a handshake in flight
//     while another context is created fails).
// So lws provides DNS, TCP, timers and the event loop over a RAW connection; OpenSSL runs over
// memory BIOs (cws_client_tls.c); the upgrade, framing, masking, ping/pong and the close
// handshake are in cws_client_wire.c, which reads through the pure parsers of cws_parse.c and
// writes through the one output buffer of cws_client_io.c.
#pragma once

#include "cws_internal.h"
#include "cws_parse.h"

#include <openssl/ssl.h>

enum { CLIENT_CONNECTING = 0, CLIENT_OPEN = 1, CLIENT_DONE = 2 };

/// Where the connection is (service thread).
enum { PHASE_CONNECTING, PHASE_HANDSHAKE, PHASE_OPEN, PHASE_CLOSING, PHASE_DONE };

#define CWS_CLOSE_WAIT_S 3

struct cws_client {
    cws_loop loop;
    // configuration (copied at open)
    int use_tls;
    int port;
    char *host;
    char *host_header;
    char *path;
    int has_pin;
    char pin[CWS_FINGERPRINT_HEX];
    unsigned ping_interval_s;
    char *ca_file;  // trust anchors instead of the system store (NULL: system store)
    struct lws_protocols protocols[2];
    lws_retry_bo_t idle_policy;  // keeps lws's own idle hang-up out of the way (ours is in on_timer)

    // ---- service thread only ----
    struct lws *wsi;
    int phase;
    int terminal;  // ERROR or CLOSED emitted
    int pin_mismatch;
    char observed[CWS_FINGERPRINT_HEX];
    char verify_error[160];

    // TLS over memory BIOs (NULL ssl for ws://)
    SSL_CTX *ssl_ctx;
    SSL *ssl;
    int tls_ready;            // handshake finished and the certificate accepted
    unsigned char *tls_plain; // scratch for SSL_read

    // bytes for the socket (ciphertext over wss), in order: out[out_sent..out_len) is unsent
    unsigned char *out;
    size_t out_len;
    size_t out_sent;
    size_t out_cap;

    // upgrade handshake
    char *request;
    size_t request_len;
    int request_sent;
    char expected_accept[32];
    cws_upgrade upgrade;  // the response head being collected

    // frame parser (cws_parse.c)
    cws_rx rx;

    // sending
    cws_msg *tx_head;
    cws_msg *tx_tail;
    unsigned char *frame;  // scratch: header + mask + one masked fragment
    int pong_pending;
    unsigned char pong[CWS_CONTROL_MAX];
    size_t pong_len;
    int ping_pending;
    uint32_t ping_counter;

    // closing
    int close_requested;  // by the owner: send after the queue drains
    int close_code;
    char close_reason[CWS_REASON_MAX];
    int close_now;        // send a close frame next, queue or not (echo, 1009, 1002)
    int close_sent;
    int close_received;
    int close_origin;
    int final_code;
    char final_reason[CWS_REASON_MAX];

    // keepalive
    int64_t last_rx_ms;

    // read by other threads
    atomic_int state;
    atomic_uint_fast64_t send_stalls;  // times the socket took less than offered
};

// ---- cws_client_wire.c ----
/// Builds the upgrade request and the Sec-WebSocket-Accept we expect; 0 or -1.
int cws_wire_prepare_handshake(cws_client *c);
/// Feeds bytes from the socket (handshake response, then frames); 0, or -1 to drop the socket.
int cws_wire_receive(cws_client *c, struct lws *wsi, const unsigned char *in, size_t len);
/// Writes the next pending thing (request, pong, ping, close, data fragment): 1 when it wrote
/// one, 0 when there was nothing to write, -1 on failure.
int cws_wire_writable(cws_client *c, struct lws *wsi);
/// 1 while cws_wire_writable has something to write.
int cws_wire_wants_to_write(const cws_client *c);
/// Records a locally started close and schedules the close frame.
void cws_wire_start_close(cws_client *c, struct lws *wsi, int code, const char *reason, int urgent);
/// Frees parser buffers and the send queue.
void cws_wire_release(cws_client *c);
int64_t cws_now_ms(void);

// ---- cws_client_tls.c ----
/// Creates the SSL object and starts the handshake (ClientHello queued); 0 or -1.
int cws_tls_start(cws_client *c, struct lws *wsi);
/// Ciphertext from the socket: drives the handshake, then feeds plaintext to the wire; 0 or -1.
int cws_tls_receive(cws_client *c, struct lws *wsi, const unsigned char *in, size_t len);
/// Moves what OpenSSL produced (handshake, alerts, records) behind the unsent bytes; 0 or -1.
int cws_tls_drain(cws_client *c);
void cws_tls_release(cws_client *c);

// ---- cws_client_io.c: the one way bytes leave the client ----
/// Sends bytes to the peer, through TLS when there is TLS: they join the ordered output after
/// whatever is still unsent, and as much goes to the socket as it takes now; 0 or -1.
int cws_transport_write(cws_client *c, struct lws *wsi, const unsigned char *data, size_t len);
/// Appends raw socket bytes (ciphertext) to the output; 0 or -1 (out of memory).
int cws_out_append(cws_client *c, const unsigned char *data, size_t len);
/// Sends unsent output until the socket refuses (EAGAIN or a short send): the rest stays and a
/// writable callback is requested to resume; 0, or -1 when the socket failed.
int cws_out_flush(cws_client *c, struct lws *wsi);
/// 1 while output is waiting for the socket.
int cws_out_pending(const cws_client *c);
void cws_out_release(cws_client *c);

// ---- cws_client.c ----
/// Transport (TCP, and TLS if any) is ready: verify the pin once more, start the upgrade; 0 or -1.
int cws_client_transport_ready(cws_client *c, struct lws *wsi);
/// The connection is established (upgrade accepted): CONNECTED event, keepalive starts.
void cws_client_did_open(cws_client *c, struct lws *wsi);
/// Connection failure before it opened (kind chosen from what is known).
void cws_client_fail(cws_client *c, const char *why);
void cws_client_emit_message(cws_client *c, const unsigned char *data, size_t len, int binary);
void cws_client_emit_pong(cws_client *c);
