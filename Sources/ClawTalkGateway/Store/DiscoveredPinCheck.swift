/// How a DNS-SD TXT `gatewayTlsSha256` relates to the stored pin. Read-only by design: the
/// store has no API that writes a TXT value (protocol.md §17.1.4, §17.3).
public enum DiscoveredPinCheck: Sendable, Hashable {
    /// No pin stored: a first-seen fingerprint needs explicit user confirmation.
    case noStoredPin
    /// The TXT value equals the stored pin.
    case matchesStoredPin
    /// The TXT value differs; the stored pin stays in force.
    case conflictsWithStoredPin
}
