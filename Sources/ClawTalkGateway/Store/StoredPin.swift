public import ClawTalkProtocol

/// A TLS leaf pin stored for a gateway key (protocol.md §17.1).
public struct StoredPin: Sendable, Hashable, Codable {
    /// The pinned SHA-256.
    public var fingerprint: TLSFingerprint
    /// Where it came from.
    public var source: PinSource
    /// When it was stored, milliseconds since the epoch.
    public var savedAtMs: Int64

    /// A stored pin.
    public init(fingerprint: TLSFingerprint, source: PinSource, savedAtMs: Int64) {
        self.fingerprint = fingerprint
        self.source = source
        self.savedAtMs = savedAtMs
    }
}
