public import ClawTalkProtocol

/// What to do with a discovered gateway before connecting (protocol.md §17.1, §17.3):
/// decided from the stored pin and the fingerprint observed on a TLS probe of the SRV target;
/// the TXT `gatewayTlsSha256` is only compared, never trusted or stored.
public enum DiscoveryDecision: Sendable, Hashable {
    /// Not TLS: listed only; connecting needs an explicit URL or a setup code.
    case needsExplicitURL
    /// A pin is stored for the gateway key and the certificate matches it: connect.
    /// `advertisedConflict` is true when TXT advertises a different fingerprint (the stored
    /// pin stays).
    case connectPinned(TLSFingerprint, advertisedConflict: Bool)
    /// A pin is stored and the certificate does not match it: refuse.
    case pinMismatch(stored: TLSFingerprint, observed: TLSFingerprint)
    /// No pin stored: the observed fingerprint must be shown and explicitly confirmed.
    /// `advertisedMatches` is nil without a TXT fingerprint.
    case confirmFirstSeen(observed: TLSFingerprint, advertisedMatches: Bool?)

    /// The decision for `gateway` given the pin stored for its key and the fingerprint observed
    /// on a TLS handshake with its SRV target.
    public static func decide(
        gateway: DiscoveredGateway, storedPin: TLSFingerprint?, observed: TLSFingerprint
    ) -> DiscoveryDecision {
        guard gateway.directURL != nil else { return .needsExplicitURL }
        let advertised = gateway.txt.advertisedFingerprint
        if let storedPin {
            guard observed == storedPin else { return .pinMismatch(stored: storedPin, observed: observed) }
            return .connectPinned(storedPin, advertisedConflict: advertised.map { $0 != storedPin } ?? false)
        }
        return .confirmFirstSeen(observed: observed, advertisedMatches: advertised.map { $0 == observed })
    }
}
