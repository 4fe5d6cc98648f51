import ClawTalkGateway
public import ClawTalkProtocol

/// Reads the SHA-256 of a server's DER leaf certificate without trusting it: a `wss://`
/// handshake pinned to an impossible fingerprint, which the transport aborts right after the
/// certificate arrived (nothing is sent over the connection). What it returns is only shown to
/// the user; it becomes a pin only after explicit confirmation.
public enum TLSFingerprintProbe {
    /// Why the probe got no fingerprint.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// TCP or TLS failed before a certificate arrived.
        case unreachable(String)

        /// One line.
        public var description: String {
            switch self {
            case .unreachable(let why): "no TLS certificate from the gateway: \(why)"
            }
        }
    }

    /// The fingerprint of the certificate `host:port` presents.
    /// - Throws: ``Failure``.
    public static func fingerprint(url: String, timeout: Duration = .seconds(5)) async throws(Failure) -> TLSFingerprint
    {
        let impossible = String(repeating: "0", count: 64)
        let client: WebSocketClient
        do {
            client = try WebSocketClient(
                configuration: WebSocketConfiguration(url: url, pingIntervalSeconds: 0, tlsPinSHA256: impossible))
        } catch {
            throw .unreachable("\(error)")
        }
        defer { client.shutdown() }
        do {
            try await client.connect(timeout: timeout)
        } catch TransportError.tlsPinMismatch(_, let actual) {
            if let fingerprint = TLSFingerprint(actual) { return fingerprint }
            throw .unreachable("the server sent no certificate")
        } catch {
            throw .unreachable("\(error)")
        }
        throw .unreachable("the handshake unexpectedly accepted an impossible pin")
    }
}
