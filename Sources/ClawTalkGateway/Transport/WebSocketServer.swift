internal import CWebSockets
import ClawTalkSupport
public import Foundation
import Synchronization

/// A WebSocket server on 127.0.0.1 for the project's own test gateway (plain or TLS).
///
/// Owner of one C `cws_server`: its service thread makes every libwebsockets call, this class
/// only queues copies of outgoing data and close requests. `@unchecked Sendable` because the
/// handle is guarded by a `Mutex` and the C calls are thread-safe; `stop()`/`deinit` join the
/// service thread before freeing. Sends to unknown or closed connections are dropped silently
/// (the connection may close between the caller's check and the service thread's turn).
/// To "stall" a client, simply send nothing.
public final class WebSocketServer: @unchecked Sendable {
    /// Every connection's events. Unbounded (test traffic); ends after ``stop()``.
    public let events: AsyncStream<WebSocketServerEvent>
    /// Inbound messages larger than this close that connection with 1009.
    public let maxMessageBytes: Int

    private let sink: WebSocketServerSink
    private let handle = Mutex<ServerHandle?>(nil)
    private let listeningPort = Atomic<Int>(0)

    /// A stopped server; call ``start(port:tls:)``. `httpHandler` answers plain HTTP requests
    /// (not upgrades) with a JSON body; it runs on the service thread and must return at once.
    /// Without it (or when it returns nil) libwebsockets answers them itself.
    public init(
        maxMessageBytes: Int = WebSocketConfiguration.defaultMaxMessageBytes,
        httpHandler: (@Sendable (HTTPServerRequest) -> HTTPServerReply?)? = nil
    ) {
        precondition(maxMessageBytes > 0, "maxMessageBytes must be positive")
        self.maxMessageBytes = maxMessageBytes
        let (stream, continuation) = AsyncStream.makeStream(
            of: WebSocketServerEvent.self, bufferingPolicy: .unbounded)
        self.events = stream
        self.sink = WebSocketServerSink(continuation: continuation, httpHandler: httpHandler)
    }

    deinit {
        stop()
    }

    /// The port listened on (0 before ``start(port:tls:)``).
    public var port: Int { listeningPort.load(ordering: .acquiring) }

    /// Listens on 127.0.0.1:`port` (0 = a free port, see ``port``); `tls` = PEM files for wss.
    public func start(
        port: Int = 0, tls: (certificatePath: String, keyPath: String)? = nil
    ) throws(TransportError) {
        try handle.locked { (handle: inout ServerHandle?) throws(TransportError) in
            guard handle == nil else { throw .listenFailed("server already started") }
            var errorBuffer = [CChar](repeating: 0, count: 256)
            let userData = Unmanaged.passUnretained(sink).toOpaque()
            let maxBytes = maxMessageBytes
            let http: cws_http_fn? = sink.hasHTTPHandler ? WebSocketServerSink.answerHTTP : nil
            let server: OpaquePointer? = withOptionalCString(tls?.certificatePath) { cert in
                withOptionalCString(tls?.keyPath) { key in
                    var config = cws_server_config(
                        port: Int32(clamping: port), tls_cert_path: cert, tls_key_path: key,
                        max_message_bytes: maxBytes, http_handler: http, http_user: userData)
                    return cws_server_open(
                        &config,
                        { user, event in
                            guard let user, let event else { return }
                            Unmanaged<WebSocketServerSink>.fromOpaque(user).takeUnretainedValue()
                                .handle(event.pointee)
                        },
                        userData, &errorBuffer, errorBuffer.count)
                }
            }
            guard let server else {
                throw .listenFailed(
                    String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            handle = ServerHandle(pointer: server)
            listeningPort.store(Int(cws_server_port(server)), ordering: .releasing)
        }
    }

    /// Queues a text message for `connection` (64 KiB fragments, or one frame if `singleFrame`).
    public func send(text: String, to connection: ConnectionID, singleFrame: Bool = false) throws(TransportError) {
        var text = text
        let flags = singleFrame ? Int32(CWS_SEND_SINGLE_FRAME) : 0
        try withHandle { (server: OpaquePointer) throws(TransportError) in
            let rc = text.withUTF8 { cws_server_send(server, connection.rawValue, $0.baseAddress, $0.count, flags) }
            try check(rc)
        }
    }

    /// Queues a binary message for `connection`.
    public func send(binary: Data, to connection: ConnectionID, singleFrame: Bool = false) throws(TransportError) {
        let flags = Int32(CWS_SEND_BINARY) | (singleFrame ? Int32(CWS_SEND_SINGLE_FRAME) : 0)
        try withHandle { (server: OpaquePointer) throws(TransportError) in
            let rc = binary.withUnsafeBytes {
                cws_server_send(server, connection.rawValue, $0.baseAddress, $0.count, flags)
            }
            try check(rc)
        }
    }

    /// Stops (or resumes) reading from `connection`, so that the client's socket fills up.
    public func pauseReading(_ connection: ConnectionID, _ paused: Bool = true) throws(TransportError) {
        try withHandle { (server: OpaquePointer) throws(TransportError) in
            try check(cws_server_pause_reading(server, connection.rawValue, paused ? 1 : 0))
        }
    }

    /// Closes one connection gracefully after its queued messages (reason cut to 123 bytes).
    public func close(_ connection: ConnectionID, code: Int = 1000, reason: String = "") throws(TransportError) {
        precondition(WebSocketClient.isSendableCloseCode(code), "close code \(code) may not be sent")
        let reason = WebSocketClient.truncatedReason(reason)
        try withHandle { (server: OpaquePointer) throws(TransportError) in
            try check(cws_server_close_conn(server, connection.rawValue, Int32(code), reason))
        }
    }

    /// Stops listening and drops every connection without a closing handshake; joins the
    /// service thread, then ends ``events``. Also done by `deinit`.
    public func stop() {
        let taken = handle.locked { handle -> ServerHandle? in
            defer { handle = nil }
            return handle
        }
        if let taken { cws_server_destroy(taken.pointer) }
        sink.finish()
    }

    private func withHandle(_ body: (OpaquePointer) throws(TransportError) -> Void) throws(TransportError) {
        try handle.locked { (handle: inout ServerHandle?) throws(TransportError) in
            guard let server = handle?.pointer else { throw .notConnected }
            try body(server)
        }
    }

    /// Turns a shim return code into ``TransportError``.
    private func check(_ rc: Int32) throws(TransportError) {
        switch rc {
        case Int32(CWS_OK): return
        case Int32(CWS_ERR_NOT_OPEN): throw .notConnected
        default: throw .listenFailed("WebSocket shim refused the call (\(rc))")
        }
    }
}

/// The C server pointer, only touched under ``WebSocketServer``'s mutex.
private struct ServerHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
