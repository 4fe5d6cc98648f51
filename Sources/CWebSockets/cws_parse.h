// Internal to CWebSockets: the client's pure parsers, bytes in -> events out. No I/O, no
// libwebsockets, no OpenSSL, no clock: the client (cws_client_wire.c) feeds them what the socket
// delivered and acts on what they return; the libFuzzer harnesses in Fuzz/ feed them anything.
//
//   * cws_rx: RFC 6455 frames from a server (5.2 framing, 5.4 fragmentation, 5.5 control
//     frames, 5.5.1 close payloads, 7.4 close codes, 8.1 UTF-8 text) with reassembly and a
//     message size limit.
//   * cws_upgrade: the HTTP/1.1 101 response to the client's upgrade request (4.1, 4.2.2).
#pragma once

#include <stddef.h>
#include <stdint.h>

#define CWS_CONTROL_MAX 125
#define CWS_HANDSHAKE_MAX 16384

// ---- UTF-8 ------------------------------------------------------------------------------------

/// Incremental UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
typedef struct cws_utf8 {
    uint8_t need;  ///< continuation bytes still expected
    uint8_t lo;    ///< the next byte's range while `need` > 0
    uint8_t hi;
} cws_utf8;

/// Checks `len` more bytes of a sequence; 0, or -1 at the first invalid byte.
int cws_utf8_feed(cws_utf8 *u, const uint8_t *p, size_t len);
/// 1 when `p[0..len)` is complete, valid UTF-8.
int cws_utf8_valid(const uint8_t *p, size_t len);

/// 1 for a close code an endpoint may send or accept on the wire (1000-1003, 1007-1014,
/// 3000-4999). 1004 is reserved, 1005/1006/1015 must never be sent, 1016-2999 are unassigned
/// (RFC 6455 7.4.1, 7.4.2); 1012-1014 are IANA-registered and the gateway uses them.
int cws_close_code_is_sendable(int code);

// ---- frames -----------------------------------------------------------------------------------

/// What one call of cws_rx_feed produced.
typedef enum cws_rx_event {
    CWS_RX_NONE = 0,  ///< the input was consumed without completing anything
    CWS_RX_MESSAGE,   ///< a complete data message: msg/msg_len/msg_binary (valid until next feed)
    CWS_RX_PING,      ///< ctl/ctl_len
    CWS_RX_PONG,      ///< ctl/ctl_len
    CWS_RX_CLOSE,     ///< a valid close frame: close_code (0 = no code), close_reason/_len
    CWS_RX_FAIL,      ///< fail the connection with fail_code (1002, 1007, 1009, 1011), fail_reason
} cws_rx_event;

/// Frame parser state. Zero-initialise, set max_message_bytes, free with cws_rx_release.
typedef struct cws_rx {
    // ---- set by the owner ----
    size_t max_message_bytes;  ///< data messages above this fail with 1009
    int discard_data;          ///< drop data frames unchecked (the connection is closing)

    // ---- state ----
    int state;
    uint8_t head[14];
    size_t head_have;
    size_t head_need;
    int opcode;
    int fin;
    uint64_t remaining;  ///< payload bytes of the current frame still to come
    int discard;         ///< the current frame's payload is dropped
    int delivered;       ///< msg was handed out: reset on the next feed
    cws_utf8 utf8;       ///< the text message being reassembled

    // ---- results ----
    uint8_t *msg;
    size_t msg_len;
    size_t msg_cap;
    int msg_binary;
    int msg_active;  ///< a data message is being reassembled (fragments so far)
    uint8_t ctl[CWS_CONTROL_MAX];
    size_t ctl_len;
    int close_code;
    const uint8_t *close_reason;
    size_t close_reason_len;
    int fail_code;
    const char *fail_reason;  ///< static string
} cws_rx;

/// Consumes bytes until one event is complete or the input ends; `*used` says how many (at
/// least 1 when len > 0). After a framing error (1002) the parser is dead: everything is
/// consumed and ignored. After any other failure it skips the rest of that frame and goes on.
cws_rx_event cws_rx_feed(cws_rx *rx, const uint8_t *in, size_t len, size_t *used);
/// Frees the message buffer (the parser may be reused after zeroing).
void cws_rx_release(cws_rx *rx);

// ---- upgrade response -------------------------------------------------------------------------

/// Collects and checks the response head. Zero-initialise; free with cws_upgrade_release.
typedef struct cws_upgrade {
    char *buf;  ///< CWS_HANDSHAKE_MAX + 1 bytes once the first byte arrived
    size_t len;
} cws_upgrade;

/// Feeds bytes from the socket. 0: need more; 1: accepted, the head ended after `*used` bytes of
/// `in` (the rest are frames); -1: rejected, `why` says why. `expected_accept` is the
/// Sec-WebSocket-Accept value the request implies.
int cws_upgrade_feed(cws_upgrade *u, const uint8_t *in, size_t len, const char *expected_accept,
                     size_t *used, char *why, size_t whylen);
void cws_upgrade_release(cws_upgrade *u);
