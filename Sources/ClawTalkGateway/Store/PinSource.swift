/// Where a stored TLS pin came from (protocol.md §17.1.4). There is deliberately no
/// DNS-SD TXT case: a TXT value never becomes or replaces a pin.
public enum PinSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// `tlsFingerprint` of a setup code (primary URL only).
    case setupCode
    /// `--gateway-tls-fingerprint` on the command line.
    case commandLine
    /// `gateway.tlsFingerprint` in the configuration.
    case config
    /// A discovered fingerprint the user explicitly confirmed (protocol.md §17.3).
    case userConfirmed
    /// Observed after the connection passed system trust (trust on first use).
    case trustOnFirstUse
}

/// Sources allowed to set or replace a pin explicitly; trust on first use is not one of them.
public enum ExplicitPinSource: String, Sendable, Hashable, CaseIterable {
    /// Setup code.
    case setupCode
    /// Command line.
    case commandLine
    /// Configuration file.
    case config
    /// User confirmation of a discovered fingerprint.
    case userConfirmed

    /// The stored source.
    var pinSource: PinSource {
        switch self {
        case .setupCode: .setupCode
        case .commandLine: .commandLine
        case .config: .config
        case .userConfirmed: .userConfirmed
        }
    }
}
