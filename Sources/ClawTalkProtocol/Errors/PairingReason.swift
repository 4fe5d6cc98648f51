/// `details.reason` of a `PAIRING_REQUIRED` failure (protocol.md §8.2).
public enum PairingReason: String, Sendable, Hashable, CaseIterable {
    /// The device was never approved.
    case notPaired = "not-paired"
    /// A new role (e.g. operator on a node-only device).
    case roleUpgrade = "role-upgrade"
    /// Wider scopes than approved.
    case scopeUpgrade = "scope-upgrade"
    /// Changed `platform`/`deviceFamily` versus the pinned values.
    case metadataUpgrade = "metadata-upgrade"
}
