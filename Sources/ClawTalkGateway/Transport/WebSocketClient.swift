internal import CWebSockets
import ClawTalkSupport
import Synchronization

/// One WebSocket connection to a gateway, on libwebsockets 4.1 (`wss://` through OpenSSL 3).
///
/// Owner of one C `cws_client`. Threading: the C side runs its own service thread that makes
/// every libwebsockets call; this class only hands it copies of outgoing data through a locked
/// queue and receives events from it (through `WebSocketClientSink`). It is `@unchecked Sendable`
/// because the handle is guarded by a `Mutex` and the C functions it calls are thread-safe;
/// `shutdown()`/`deinit` join the service thread before the handle is freed.
///
/// Life cycle (one attempt per instance; reconnecting means a new instance):
/// `init` -> `connect()` -> ``events`` (messages, then exactly one `.closed`) -> `close()`;
/// `shutdown()` (or `deinit`) instead ends ``events`` at once, without a `.closed`. Outgoing text is sent in 64 KiB fragments; inbound fragments are reassembled
/// up to ``WebSocketConfiguration/maxMessageBytes``, beyond which the socket closes with 1009.
///
/// TLS: without a pin the system trust store and host name decide, and the observed leaf
/// fingerprint is offered for trust on first use; with a pin the connection succeeds iff the
/// leaf certificate's SHA-256 matches, even when self-signed (protocol.md §17.1).
///
/// libwebsockets 4.1 quirks, handled in C: its ws client turns close codes 1012-1014 into 1002
/// and its TLS client keeps connection lookups in a global OpenSSL index that every new TLS
/// context re-allocates, so the client uses lws only for DNS/TCP/timers (a RAW connection) and
/// does TLS (OpenSSL 3 over memory BIOs) and RFC 6455 itself. lws logs to stderr unless told
/// not to; set `CLAWTALK_LWS_LOG_LEVEL` to an lws `LLL_` mask to see its logs.
public final class WebSocketClient: @unchecked Sendable {
    /// Inbound messages, then one `.closed` (after a connection) or `.error` (failed attempt).
    /// Unbounded: this is the socket's control stream and the gateway bounds what it sends; the
    /// reader must consume promptly (messages can be up to `maxMessageBytes` each).
    public let events: AsyncStream<WebSocketEvent>
    /// The configuration this client was made with.
    public let configuration: WebSocketConfiguration
    /// The parsed URL.
    public let endpoint: WebSocketEndpoint

    private let pin: String?
    private let sink: WebSocketClientSink
    private let handle = Mutex<ClientHandle?>(nil)
    private let started = Atomic<Bool>(false)

    /// Validates the configuration; nothing is opened until ``connect(timeout:)``.
    public init(configuration: WebSocketConfiguration) throws(TransportError) {
        let endpoint = try WebSocketEndpoint(parsing: configuration.url)
        var pin: String?
        if endpoint.isSecure, let raw = configuration.tlsPinSHA256 {
            guard let normalized = WebSocketConfiguration.normalizedPin(raw) else { throw .invalidPin }
            pin = normalized
        }
        precondition(configuration.maxMessageBytes > 0, "maxMessageBytes must be positive")
        self.configuration = configuration
        self.endpoint = endpoint
        self.pin = pin
        let (stream, continuation) = AsyncStream.makeStream(
            of: WebSocketEvent.self, bufferingPolicy: .unbounded)
        self.events = stream
        self.sink = WebSocketClientSink(continuation: continuation, expectedPin: pin)
    }

    deinit {
        shutdown()
    }

    /// SHA-256 (64 lowercase hex) of the server's DER leaf certificate, once a `wss://`
    /// handshake got that far. Also set when verification failed (for messages): store it as a
    /// pin (TOFU) only after `connect()` succeeded without one, i.e. with system trust.
    public var observedCertificateSHA256: String? { sink.fingerprint }

    /// Why the socket ended (nil while connecting or open).
    public var terminationError: TransportError? { sink.termination }

    /// Message, byte and pong counters.
    public var statistics: WebSocketStatistics { sink.statistics }

    /// How often the socket took less than the client offered (a short send or EAGAIN) and the
    /// rest waited for it to drain; 0 before ``connect(timeout:)`` and after ``shutdown()``.
    public var sendStalls: Int {
        handle.locked { handle in handle.map { Int(cws_client_send_stalls($0.pointer)) } ?? 0 }
    }

    /// Opens the connection and returns once the WebSocket handshake is done. Throws
    /// ``TransportError`` (`connectFailed`, `tlsPinMismatch`, `closed`, `timedOut`) or
    /// `CancellationError`; a failed attempt also ends ``events``. Call at most once.
    public func connect(timeout: Duration = .seconds(30)) async throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else {
            throw TransportError.connectFailed("connect() was already called on this client")
        }
        try open()
        let sink = self.sink
        let timer = Task { [weak self] in
            try await Task.sleep(for: timeout)
            if sink.failConnect(TransportError.timedOut) { self?.abortAttempt() }
        }
        defer { timer.cancel() }
        try await withTaskCancellationHandler {
            try await sink.waitUntilConnected()
        } onCancel: {
            if sink.failConnect(CancellationError()) { self.abortAttempt() }
        }
    }

    /// Queues one text message (a copy, sent in 64 KiB fragments); throws ``TransportError/notConnected`` unless open.
    public func send(text: String) throws(TransportError) {
        var text = text
        try withHandle { (client: OpaquePointer) throws(TransportError) in
            let rc = text.withUTF8 { cws_client_send(client, $0.baseAddress, $0.count, 0) }
            try check(rc)
        }
    }

    /// Starts the closing handshake after queued messages (`code` 1000, 1002-1003, 1007-1014
    /// or 3000-4999; reason cut to 123 bytes). `events` ends with `.closed`. No-op when not open.
    public func close(code: Int = 1000, reason: String = "") {
        precondition(Self.isSendableCloseCode(code), "close code \(code) may not be sent")
        let reason = Self.truncatedReason(reason)
        try? withHandle { (client: OpaquePointer) throws(TransportError) in
            _ = cws_client_close(client, Int32(code), reason)
        }
    }

    /// Tears the socket down at once (no closing handshake) and joins the service thread; no
    /// event is delivered after it returns and ``events`` ends. Also done by `deinit`.
    public func shutdown() {
        let taken = handle.locked { handle -> ClientHandle? in
            defer { handle = nil }
            return handle
        }
        if let taken { cws_client_destroy(taken.pointer) }
        sink.finish(reason: "shut down")
    }

    // MARK: - Private

    private func open() throws(TransportError) {
        var errorBuffer = [CChar](repeating: 0, count: 256)
        let userData = Unmanaged.passUnretained(sink).toOpaque()
        let endpoint = self.endpoint
        let maxBytes = configuration.maxMessageBytes
        let ping = UInt32(clamping: max(0, configuration.pingIntervalSeconds))
        let caFile = configuration.trustedRootsPath
        let client: OpaquePointer? = endpoint.host.withCString { host in
            endpoint.path.withCString { path in
                withOptionalCString(pin) { pin in
                    withOptionalCString(caFile) { caFile in
                        var config = cws_client_config(
                            use_tls: endpoint.isSecure ? 1 : 0, host: host, port: Int32(endpoint.port),
                            path: path, max_message_bytes: maxBytes, ping_interval_s: ping,
                            pin_sha256_hex: pin, ca_file: caFile)
                        return cws_client_open(
                            &config,
                            { user, event in
                                guard let user, let event else { return }
                                Unmanaged<WebSocketClientSink>.fromOpaque(user).takeUnretainedValue()
                                    .handle(event.pointee)
                            },
                            userData, &errorBuffer, errorBuffer.count)
                    }
                }
            }
        }
        guard let client else {
            let message = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let error = TransportError.connectFailed(message)
            sink.failConnect(error)
            throw error
        }
        handle.locked { $0 = ClientHandle(pointer: client) }
    }

    /// Abandons a connection attempt after a timeout or cancellation.
    private func abortAttempt() {
        try? withHandle { (client: OpaquePointer) throws(TransportError) in
            _ = cws_client_close(client, 1000, "")
        }
    }

    private func withHandle(_ body: (OpaquePointer) throws(TransportError) -> Void) throws(TransportError) {
        try handle.locked { (handle: inout ClientHandle?) throws(TransportError) in
            guard let client = handle?.pointer else { throw .notConnected }
            try body(client)
        }
    }

    /// Turns a shim return code into ``TransportError``.
    private func check(_ rc: Int32) throws(TransportError) {
        switch rc {
        case Int32(CWS_OK): return
        case Int32(CWS_ERR_NOT_OPEN): throw .notConnected
        case Int32(CWS_ERR_NO_MEMORY): throw .connectFailed("out of memory queueing a message")
        default: throw .connectFailed("WebSocket shim refused the call (\(rc))")
        }
    }

    static func isSendableCloseCode(_ code: Int) -> Bool {
        (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code)
    }

    /// At most 123 UTF-8 bytes, cut on a character boundary.
    static func truncatedReason(_ reason: String) -> String {
        var result = ""
        var bytes = 0
        for character in reason {
            let size = character.utf8.count
            guard bytes + size <= 123 else { break }
            bytes += size
            result.append(character)
        }
        return result
    }
}

/// The C client pointer, only touched under ``WebSocketClient``'s mutex.
private struct ClientHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// `withCString` for an optional string (nil stays a NULL pointer).
func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
