/// Which device-auth payload layout is signed (protocol.md §6.2). v4 is deliberately absent.
public enum DeviceAuthVersion: String, Sendable, Hashable, CaseIterable {
    /// `v2|deviceId|clientId|clientMode|role|scopes|signedAtMs|token|nonce`.
    case v2
    /// v2's fields plus `|platformNorm|deviceFamilyNorm`; the Gateway tries it first.
    case v3
}
