internal import CWebSockets
public import ClawTalkProtocol
import Foundation

/// One `GET` over a fresh HTTP(S) connection, for redeeming a join URL
/// (protocol.md §9.1). Owner of the C `cws_https` calls; each request runs on its own
/// thread, because the C side blocks (every step bounded by ``Request/timeout``).
///
/// Trust is the WebSocket client's: without a pin, the system store (or
/// ``Request/trustedRootsPath``) and the host name; with a pin, only SHA-256 of the DER leaf.
/// No redirects are followed. The request carries no credential; the response body may
/// (a bootstrap token), so errors never include it.
public enum HTTPGetClient {
    /// What to fetch.
    public struct Request: Sendable, Hashable {
        /// `https` when true, plain `http` otherwise.
        public var useTLS: Bool
        /// DNS name or IP literal (IPv6 without brackets).
        public var host: String
        /// TCP port.
        public var port: Int
        /// Request target, starting with `/`.
        public var path: String
        /// Leaf pin: only this certificate is accepted.
        public var pin: TLSFingerprint?
        /// PEM trust anchors instead of the system store (ignored with a pin).
        public var trustedRootsPath: String?
        /// Connect timeout, and the limit for each read and write.
        public var timeout: Duration
        /// Largest accepted body.
        public var maxBodyBytes: Int

        /// A request with the given parts.
        public init(
            useTLS: Bool, host: String, port: Int, path: String, pin: TLSFingerprint? = nil,
            trustedRootsPath: String? = nil, timeout: Duration = .seconds(15), maxBodyBytes: Int = 16 * 1024
        ) {
            self.useTLS = useTLS
            self.host = host
            self.port = port
            self.path = path
            self.pin = pin
            self.trustedRootsPath = trustedRootsPath
            self.timeout = timeout
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// Why the exchange failed.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not resolvable, refused, timed out, or the connection broke.
        case unreachable(String)
        /// No pin, and the system trust store rejected the certificate (reason from OpenSSL).
        case tlsUntrusted(String)
        /// The leaf certificate is not the pinned one.
        case pinMismatch(String)
        /// The answer is not a usable HTTP response (too large, malformed).
        case badResponse(HTTPResponseError)

        /// One line.
        public var description: String {
            switch self {
            case .unreachable(let why): why
            case .tlsUntrusted(let why): "certificate not trusted (\(why))"
            case .pinMismatch(let why): "pin mismatch: \(why)"
            case .badResponse(let error): "\(error)"
            }
        }
    }

    /// Sends `GET request.path` with `Connection: close` and reads the whole response.
    public static func get(_ request: Request) async throws(Failure) -> HTTPResponse {
        let result: Result<HTTPResponse, Failure> = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: exchange(request)) }
            thread.name = "clawtalk-http-get"
            thread.start()
        }
        return try result.get()
    }

    /// The blocking exchange.
    private static func exchange(_ request: Request) -> Result<HTTPResponse, Failure> {
        let timeoutMs = Int32(clamping: request.timeout.components.seconds * 1000 + 1)
        var errorBuffer = [CChar](repeating: 0, count: 300)
        var kind = CWS_ERROR_NONE
        let handle: OpaquePointer? = request.host.withCString { host in
            withOptionalCString(request.pin?.hex) { pin in
                withOptionalCString(request.trustedRootsPath) { caFile in
                    var config = cws_https_config(
                        use_tls: request.useTLS ? 1 : 0, host: host, port: Int32(clamping: request.port),
                        pin_sha256_hex: pin, ca_file: caFile, timeout_ms: timeoutMs)
                    return cws_https_connect(&config, &kind, &errorBuffer, errorBuffer.count)
                }
            }
        }
        guard let handle else {
            let message = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            switch kind {
            case CWS_ERROR_TLS_UNTRUSTED: return .failure(.tlsUntrusted(message))
            case CWS_ERROR_PIN_MISMATCH: return .failure(.pinMismatch(message))
            default: return .failure(.unreachable(message))
            }
        }
        defer { cws_https_close(handle) }
        let hostHeader = request.host.contains(":") ? "[\(request.host)]" : request.host
        let defaultPort = request.useTLS ? 443 : 80
        let authority = request.port == defaultPort ? hostHeader : "\(hostHeader):\(request.port)"
        var head = "GET \(request.path) HTTP/1.1\r\nHost: \(authority)\r\nAccept: application/json\r\n"
        head += "User-Agent: clawtalk\r\nConnection: close\r\n\r\n"
        let written = head.withCString { cws_https_write(handle, $0, strlen($0)) }
        guard written >= 0 else { return .failure(.unreachable("the connection broke while sending the request")) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let rawLimit = request.maxBodyBytes + HTTPResponseParser.maxHeaderBytes + 4096
        while true {
            let count = chunk.withUnsafeMutableBytes { cws_https_read(handle, $0.baseAddress, $0.count) }
            guard count >= 0 else {
                return .failure(.unreachable("no complete answer (timed out or the connection broke)"))
            }
            received += chunk[0..<count]
            do {
                if case .complete(let response) = try HTTPResponseParser.parse(
                    received, maxBodyBytes: request.maxBodyBytes, atEnd: count == 0)
                {
                    return .success(response)
                }
            } catch {
                return .failure(.badResponse(error))
            }
            if received.count > rawLimit { return .failure(.badResponse(.bodyTooLarge(limit: request.maxBodyBytes))) }
        }
    }
}
